"""Consistent identifier case-flipping across a Java repository (RepoClassBench paper, E.1.3, for RepoClassBench's Java
side).

``paraphrase_java_repository(root, classes, out)`` flips every identifier
declared in the given top-level classes wherever javac binds it to them, and
reports the names it kept with their rule (:data:`RULES`).
"""

from benchsmith.paraphrase.java.repository import RULES, is_valid_java_flip, paraphrase_java_repository

__all__ = ["RULES", "is_valid_java_flip", "paraphrase_java_repository"]
