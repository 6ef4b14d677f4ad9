"""TNE two-stage annotation study: chains, pages and export."""
