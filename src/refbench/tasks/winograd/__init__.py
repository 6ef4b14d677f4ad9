"""Winograd-style sentences with a blank and two options."""
