"""KITMUS results as people see them: the report capability, tables, figure, text and web page."""
