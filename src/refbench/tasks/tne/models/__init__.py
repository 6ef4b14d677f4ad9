"""TNE's systems: the span-pair model, its training, the paper's baselines, NP chunking and
enrichment."""
