"""Tests of the Winograd-style sets (WSC273, WinoGrande)."""
