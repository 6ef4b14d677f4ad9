"""refbench's version, in one place below everything that records it (results, suites,
indexes, caches); ``refbench.__version__`` is this."""

__version__ = "0.1.0"
