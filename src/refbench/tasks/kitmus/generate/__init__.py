"""KITMUS suite generation: resource pools, templates, variants, the generator, the suite's
provenance, the validator and the difficulty probe."""
