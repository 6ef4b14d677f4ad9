"""KITMUS scoring: gold, predictions, the scorer, whole suites and the suite figure."""
