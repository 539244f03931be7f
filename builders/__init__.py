"""The staged dataset builders (installed as benchsmith.builders): Defects4J-NL2Fix from Defects4J or any Java history,
RepoClassBench from a repository in either language, descriptions."""
