"""RepoClassBench builders (seed 002): shortlist classes of a repository, metadata, test directives."""
