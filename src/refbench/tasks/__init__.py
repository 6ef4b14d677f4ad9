"""Task packages: one per benchmark."""
