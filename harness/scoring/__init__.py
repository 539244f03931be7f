"""Scoring: verdicts for candidates, their ranking, and the metrics and reports drawn from them.

Public API, by module:

* :mod:`harness.scoring.evaluate`: ``evaluate`` (``benchsmith eval``), ``verdict_key``;
* :mod:`harness.scoring.fingerprint`: ``harness_fingerprint`` (the code that decides verdicts, hashed);
* :mod:`harness.scoring.ranking`: ``rank``, ``rank_to_file`` (``benchsmith rank``);
* :mod:`harness.scoring.metrics`: ``pass_at_k``, ``ranked_pass_at_k``, ``candidate_statistics``;
* :mod:`harness.scoring.report`: ``summarise``, ``render_table``, ``plot`` (``benchsmith report``).

Submodules are imported by name; importing the package imports none of them.
"""
