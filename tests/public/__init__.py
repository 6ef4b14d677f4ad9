"""Tests of refbench.api and the Python API (refbench.public)."""
