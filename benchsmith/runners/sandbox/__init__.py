"""Isolation of untrusted candidates: the jail, outcomes a candidate cannot forge, bounded output, where work runs.

Public API, by module:

* :mod:`benchsmith.runners.sandbox.jail`: ``Jail``, ``Limits``, ``ProcessExit``, ``run``, ``start``, ``isolation``,
``missing_layers``;
* :mod:`benchsmith.runners.sandbox.outcomes`: ``Sentinel``, ``Expected``, ``check_report`` (counts and sentinels);
* :mod:`benchsmith.runners.sandbox.streams`: ``BoundedLog``, ``open_ledger``, ``read_tail``;
* :mod:`benchsmith.runners.sandbox.screen`: ``primitives``, ``suspicious`` (the static screen for tricks);
* :mod:`benchsmith.runners.sandbox.executors`: ``executor``, ``LocalExecutor``, ``RayExecutor``;
* :mod:`benchsmith.runners.sandbox.retries`: ``retried``, ``Killed``, ``OutOfTime``, ``timeout_verdict`` (the
  harness's own steps that the wall clock ends).

Submodules are imported by name; importing the package imports none of them.
"""
