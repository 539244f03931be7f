"""RepoClassBench as a benchmark, in Python and in Java: what each judges, prompts and offers an agent."""
