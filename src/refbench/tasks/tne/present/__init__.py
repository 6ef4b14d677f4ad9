"""TNE results as people see them: printed text, report and heat-map."""
