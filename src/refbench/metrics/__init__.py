"""Metrics as small objects with additive counts, and bootstrap intervals."""
