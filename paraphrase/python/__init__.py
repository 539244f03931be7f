"""Consistent identifier case-flipping across a Python repository, with libcst (RepoClassBench paper, appendix
E.1.3)."""
