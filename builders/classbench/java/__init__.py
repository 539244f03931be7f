"""RepoClassBench for Java: a Maven repository's classes shortlisted, their metadata, paraphrased and published
tasks."""
