"""The shared core every layer may use: records and Parquet, atomic output, journals, progress, paths, errors.

Public API, by module:

* :mod:`benchsmith.core.schema`: the records (``NL2FixInstance``, ``ClassBenchTask``, ``Candidate``, ``Result``,
  ``RankedCandidate``), ``read_records``, ``to_table``; the ONLY place Parquet columns are defined;
* :mod:`benchsmith.core.verdict`: ``Verdict`` (what every runner returns);
* :mod:`benchsmith.core.export`: ``write_records``, ``write_dataset`` (stamped Parquet and dataset cards);
* :mod:`benchsmith.core.atomic`: ``atomic_path``, ``write_text_atomic``, ``exclusive``;
* :mod:`benchsmith.core.journal`: ``Journal`` (resumable work); :mod:`benchsmith.core.progress`: ``progress``;
* :mod:`benchsmith.core.config`: ``cache_root``, ``cache_dir``; :mod:`benchsmith.core.errors`: ``BenchsmithError``.
"""
