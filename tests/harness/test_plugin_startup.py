"""directcov's start-up, in pieces: the test files read when the plugin loads, on every Python a task's environment
may have. Whole runs with hostile candidates are tests/harness/test_redteam_python.py's."""

from __future__ import annotations

import json
import subprocess

import pytest

from benchsmith.runners.python.pytest_run import plugin_dir

TEST_FILE = """
import os
from os import path as joined
from os.path import *

LIMIT = 3
(first, *rest), last = [1, 2], 3


class TestShapes:
    @staticmethod
    @pytest.mark.skip
    def test_decorated():
        global counter
        counter = 1

    async def test_waits(self):
        del LIMIT
        try:
            pass
        except ValueError as caught:
            pass


def test_plain():
    values = [item for item in range(3)]
    return globals()
"""


def test_a_test_file_reads_alike_on_every_python_here(tmp_path):
    """What the plugin reads off a test file when it loads (the names it binds, where its tests start, whether it
    writes its names dynamically, what its imports bound) is the same on every interpreter a task's environment may
    use. Before, Pythons 3.8 and 3.9, whose ast has no match-statement nodes, raised AttributeError there, in every
    candidate's run: the plugin did not load, and no test ran."""
    from benchsmith.sources.python.environment import _interpreters

    source = tmp_path / "test_shapes.py"
    source.write_text(TEST_FILE)
    probe = f"""
import ast, json, sys, types
sys.modules["pytest"] = types.SimpleNamespace(hookimpl=lambda **kw: (lambda f: f))  # pytest is not there
namespace = {{"__name__": "directcov"}}
exec(compile(open({str(plugin_dir() / "benchsmith_directcov.py")!r}).read(), "directcov.py", "exec"), namespace)
entry = namespace["_TestFile"]({str(source)!r}, ast.parse(open({str(source)!r}).read()))
print(json.dumps([sorted(entry.bound), entry.lines, entry.dynamic, sorted(entry.imported)]))
"""
    found = {}
    for python, version in sorted(_interpreters().items(), key=lambda each: each[1]):
        if version.startswith("3.") and int(version.split(".")[1]) >= 8:
            done = subprocess.run([str(python), "-c", probe], capture_output=True, text=True)
            assert done.returncode == 0, (version, done.stderr[-500:])
            found[version] = json.loads(done.stdout)
    assert any(version.startswith(("3.8.", "3.9.")) for version in found) or pytest.skip("no Python 3.8 or 3.9 here")
    expected = [
        sorted(
            {"*", "os", "joined", "LIMIT", "first", "rest", "last", "TestShapes", "test_decorated", "counter"}
            | {"test_waits", "caught", "test_plain", "values", "item"}
        ),
        {"TestShapes.test_decorated": 11, "TestShapes.test_waits": 17, "test_plain": 25},
        True,  # the star import, and globals()
        ["joined", "os"],
    ]
    assert found == {version: expected for version in found}
