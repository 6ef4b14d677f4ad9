"""refbench: knowledge-intensive reference resolution benchmarks."""

__version__ = "0.1.0"
