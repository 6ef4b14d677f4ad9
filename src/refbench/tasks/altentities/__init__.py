"""AltEntities: indirect referring expressions for choosing between two entities."""
