"""Exports of refbench's data to other tools' formats (``refbench export``): task folders that
lm-evaluation-harness loads; each module is one target format."""
