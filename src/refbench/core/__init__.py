"""Shared core: types, I/O, registry, errors, provenance."""
