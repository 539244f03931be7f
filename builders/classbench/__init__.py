"""RepoClassBench builders (RepoClassBench paper): shortlist classes of a repository, metadata, test directives."""
