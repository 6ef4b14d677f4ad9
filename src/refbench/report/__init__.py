"""Paper-style tables and plots from result files."""
