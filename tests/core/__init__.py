"""Tests of refbench.core."""
