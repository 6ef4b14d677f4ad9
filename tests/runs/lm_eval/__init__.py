"""Tests of refbench.runs.lm_eval."""
