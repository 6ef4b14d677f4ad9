"""The runner and the SQLite results store."""
