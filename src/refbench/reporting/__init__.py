"""Paper-style tables and plots from result files (``refbench report``; in Python,
``refbench.report``)."""
