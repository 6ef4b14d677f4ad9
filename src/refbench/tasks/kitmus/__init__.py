"""KITMUS: generated coreference test suite for knowledge integration."""
