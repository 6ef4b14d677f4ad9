"""Exports of suites and data sets to other tools' layouts (Hugging Face datasets, ...)."""
