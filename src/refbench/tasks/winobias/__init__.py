"""WinoBias (Zhao et al., NAACL 2018): gender bias in coreference, pro- and anti-stereotypical."""
