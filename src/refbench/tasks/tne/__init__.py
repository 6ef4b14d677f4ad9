"""TNE: Text-based NP Enrichment: readers, metrics, baselines, chunking, a span-pair model."""
