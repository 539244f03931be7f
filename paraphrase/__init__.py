"""Consistent identifier case-flipping across a repository (RepoClassBench paper, appendix E.1.3), installed as
benchsmith.paraphrase.

:mod:`benchsmith.paraphrase.python` flips a Python repository with libcst (``collect.collect_identifiers`` gathers
the identifiers of the benchmark's classes, ``repository.paraphrase_repository`` flips every one that is safe to flip
in every Python file of a copy and reports the others with the rule that kept them, ``exclusions.RULES``);
:mod:`benchsmith.paraphrase.java` flips a Java module token-exactly where javac binds each name. Both draw their
flips from :mod:`benchsmith.paraphrase.flip` and report with :mod:`benchsmith.paraphrase.report`.
"""
