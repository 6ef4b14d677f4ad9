"""Tests of refbench.runs."""
