"""The study fixtures of tests/studies/conftest.py (a small KITMUS suite and one study of
each kind), shared with the tests of this folder."""

from tests.studies.conftest import ae_study, kitmus_study, suite, tne_study

__all__ = ["ae_study", "kitmus_study", "suite", "tne_study"]
