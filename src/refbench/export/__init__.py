"""Exports of refbench's data to other tools' layouts (``refbench export``): task folders that
lm-evaluation-harness loads, Hugging Face datasets folders; each module is one target."""
