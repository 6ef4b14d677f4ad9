"""KnowRef: readers, switching, consistency, gender-cue removal, mining."""
