"""RepoClassBench for Python: a repository's suite run with direct coverage, the shortlist, paraphrased and published
tasks."""
