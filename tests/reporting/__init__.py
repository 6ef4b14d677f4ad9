"""Tests of refbench.reporting."""
