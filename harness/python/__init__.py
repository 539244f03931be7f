"""Python: RepoClassBench's class runner, the public view of a task's tree, sandboxed pytest runs, direct coverage.

Public API, by module:

* :mod:`harness.python.class_runner`: ``TaskRunner``, ``python_dedup_key``, ``reference_solution``;
* :mod:`harness.python.public_view`: ``python_public_view`` (the pristine tree with the task's class removed);
* :mod:`harness.python.pytest_run`: ``trusted_command``, ``run_reporting``, ``PluginReport``;
* :mod:`harness.python.directcov`: the pytest plugin (loaded by path inside the jail, never imported).

Submodules are imported by name; importing the package imports none of them.
"""
