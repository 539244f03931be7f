"""Isolation of untrusted candidates: the jail, outcomes a candidate cannot forge, bounded output, where work runs.

Public API, by module:

* :mod:`harness.sandbox.jail`: ``Jail``, ``Limits``, ``ProcessExit``, ``run``, ``start``, ``isolation``, ``missing_layers``;
* :mod:`harness.sandbox.outcomes`: ``Sentinel``, ``Expected``, ``check_report`` (counts and sentinels);
* :mod:`harness.sandbox.streams`: ``BoundedLog``, ``open_ledger``, ``read_tail``;
* :mod:`harness.sandbox.screen`: ``primitives``, ``suspicious`` (the static screen for tricks);
* :mod:`harness.sandbox.executors`: ``executor``, ``LocalExecutor``, ``RayExecutor``.

Submodules are imported by name; importing the package imports none of them.
"""
