"""Python: RepoClassBench's class runner, the public view of a task's tree, sandboxed pytest runs, direct coverage.

Public API, by module:

* :mod:`benchsmith.runners.python.class_runner`: ``TaskRunner``, ``python_dedup_key``, ``reference_solution``;
* :mod:`benchsmith.runners.python.public_view`: ``python_public_view`` (the pristine tree with the task's class
removed);
* :mod:`benchsmith.runners.python.pytest_run`: ``trusted_command``, ``run_reporting``, ``PluginReport``;
* :mod:`benchsmith.runners.python.directcov`: the pytest plugin (loaded by path inside the jail, never imported).

Submodules are imported by name; importing the package imports none of them.
"""
