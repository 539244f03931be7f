"""Generation: candidates from a model's answers, from an agent's runs, or from references without a model.

Public API, by module:

* :mod:`harness.generation.generate`: ``generate`` (``benchsmith generate``), ``GenerateSummary``;
* :mod:`harness.generation.reference`: ``reference_candidates``, ``write_reference_candidates``;
* :mod:`harness.generation.agent_run`: ``run_agent``, ``AgentRunOptions``, ``transcripts_path`` (``agent run``);
* :mod:`harness.generation.agent_demo`: ``demo_script`` (``agent demo-script``).

Submodules are imported by name; importing the package imports none of them.
"""
