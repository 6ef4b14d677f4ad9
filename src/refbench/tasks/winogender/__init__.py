"""Winogender schemas (Rudinger et al., NAACL 2018): gender bias in pronoun resolution."""
