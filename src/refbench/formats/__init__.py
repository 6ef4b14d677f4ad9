"""Readers and writers for the coreference file formats (CoNLL-2012, e2e-coref, GAP)."""
