"""Tests of the refbench command line as a whole: several benchmarks in one run, start-up
imports, the recorded results re-scored."""
