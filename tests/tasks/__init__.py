"""Tests of each benchmark (tests/tasks/<name>/, as src/refbench/tasks/<name>/) and of the
task lookup."""
