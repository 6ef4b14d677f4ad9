"""GAP: reader and the official scorer's metrics, on Python 3, with extra pronoun slices."""
