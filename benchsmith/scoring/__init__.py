"""Scoring: verdicts for candidates, their ranking, and the metrics and reports drawn from them.

Public API, by module:

* :mod:`benchsmith.scoring.evaluate`: ``evaluate`` (``benchsmith eval``), ``verdict_key``;
* :mod:`benchsmith.scoring.fingerprint`: ``harness_fingerprint`` (the code that decides verdicts, hashed);
* :mod:`benchsmith.scoring.ranking`: ``rank``, ``rank_to_file`` (``benchsmith rank``);
* :mod:`benchsmith.scoring.metrics`: ``pass_at_k``, ``ranked_pass_at_k``, ``candidate_statistics``;
* :mod:`benchsmith.scoring.report`: ``summarise``, ``render_table``, ``plot`` (``benchsmith report``).

Submodules are imported by name; importing the package imports none of them.
"""
