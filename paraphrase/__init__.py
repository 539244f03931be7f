"""Consistent identifier case-flipping across a Python repository (RepoClassBench paper, appendix E.1.3).

``collect_identifiers`` gathers the identifiers of the benchmark's classes,
``paraphrase_repository`` flips every one that is safe to flip in every
Python file of a copy of the repository, and reports the others with the rule
that kept them. See ``paraphrase.exclusions.RULES``.
"""

from paraphrase.collect import collect_identifiers
from paraphrase.flip import build_mapping, flip_case
from paraphrase.repository import ParaphraseReport, paraphrase_repository

__all__ = ["ParaphraseReport", "build_mapping", "collect_identifiers", "flip_case", "paraphrase_repository"]
