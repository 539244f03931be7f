"""Candidates files made: a model's answers (generate), an agent's attempts (agent run, and its scripted demonstration),
or
references offered without a model (gold, mutants, an empty class)."""
