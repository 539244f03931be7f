"""Producing candidates, apart from running them (:mod:`benchsmith.runners`); the benchmarks are the seam between.

* :mod:`benchsmith.generation.models`: model backends (OpenAI-compatible, replay, template, scripted), embedders;
* :mod:`benchsmith.generation.prompts`: the papers' prompts and the extraction of code from answers;
* :mod:`benchsmith.generation.agents`: RRR and its baselines, their repository tools and oracle;
* :mod:`benchsmith.generation.mutants`: deterministic mutants of a Java method, reference candidates;
* :mod:`benchsmith.generation.candidates`: the commands that write candidates files (``generate``, ``agent run``,
  ``candidates reference``, ``agent demo-script``), above the benchmarks.

Submodules are imported by name; importing the package imports none of them.
"""
