"""A package whose C extension hides its pure-Python twin, written here: built as shipped, and for its fallback.

``tally/_speedups.c`` is a real extension module (compiled by the package's own setuptools build) exporting
``Tally``; ``tally/_tally_py.py`` is the pure-Python twin, which ``tally/__init__.py`` takes when the compiled module
cannot be imported or ``TALLY_NO_EXTENSIONS`` is set. Built as shipped, the tests exercise the compiled class and the
twin's methods are covered by nothing; with ``--pure-python`` its class becomes a task, judged so by eval.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from benchsmith.builders.classbench.python.suite import FALLBACK_TESTED
from benchsmith.core.schema import ClassBenchTask, Result, read_records
from benchsmith.runners.python.class_runner import reference_solution
from benchsmith.runners.python.pytest_run import plugin_dir
from benchsmith.sources.python.extensions import compiled_modules_of
from tests.helpers.cli import run_cli
from tests.helpers.sandbox_tree import write_tree

SPEEDUPS = r"""
#define PY_SSIZE_T_CLEAN
#include <Python.h>

static const char *SOURCE =
    "class Tally:\n"
    "    def __init__(self):\n"
    "        self.counts = {}\n"
    "    def add(self, key, n=1):\n"
    "        self.counts[key] = self.counts.get(key, 0) + n\n"
    "        return self.counts[key]\n"
    "    def total(self):\n"
    "        return sum(self.counts.values())\n"
    "    def most_common(self):\n"
    "        return max(self.counts, key=self.counts.get)\n";

static struct PyModuleDef definition = {PyModuleDef_HEAD_INIT, "_speedups", NULL, -1, NULL};

PyMODINIT_FUNC PyInit__speedups(void) {
    PyObject *module = PyModule_Create(&definition);
    if (module == NULL) return NULL;
    PyObject *names = PyModule_GetDict(module);
    PyDict_SetItemString(names, "__builtins__", PyEval_GetBuiltins());
    PyObject *code = Py_CompileString(SOURCE, "<compiled tally>", Py_file_input);
    if (code == NULL) { Py_DECREF(module); return NULL; }
    PyObject *done = PyEval_EvalCode(code, names, names);
    Py_DECREF(code);
    if (done == NULL) { Py_DECREF(module); return NULL; }
    Py_DECREF(done);
    return module;
}
"""

TWIN = '''\
"""The pure-Python Tally."""


def _checked(key):
    if not isinstance(key, str):
        raise TypeError(f"keys are strings, not {type(key).__name__}")
    return key


class Tally:
    """Counts of string keys."""

    def __init__(self):
        self.counts = {}

    def add(self, key, n=1):
        key = _checked(key)
        self.counts[key] = self.counts.get(key, 0) + n
        return self.counts[key]

    def total(self):
        return sum(self.counts.values())

    def most_common(self):
        return max(self.counts, key=self.counts.get)
'''

INIT = """\
import os

try:
    if os.environ.get("TALLY_NO_EXTENSIONS"):
        raise ImportError("TALLY_NO_EXTENSIONS")
    from tally._speedups import Tally
except ImportError:
    from tally._tally_py import Tally

__all__ = ["Tally"]
"""

TESTS = """\
from tally import Tally


def test_add():
    tally = Tally()
    assert tally.add("a") == 1
    assert tally.add("a", 2) == 3


def test_total():
    tally = Tally()
    tally.add("a")
    tally.add("b", 4)
    assert tally.total() == 5


def test_most_common():
    tally = Tally()
    tally.add("a")
    tally.add("b", 2)
    assert tally.most_common() == "b"
"""


# A test of the compiled class by name, as multidict's C-parametrised half is: a pure-Python build refuses the
# module, and the card counts the test apart, with that reason, not as a failure or a missing dependency.
COMPILED_TESTS = """\
def test_the_compiled_tally_adds():
    from tally._speedups import Tally

    assert Tally().add("a", 2) == 2
"""


def write_fallback_repo(root: Path) -> Path:
    files = {
        "pyproject.toml": '[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n',
        "setup.py": 'from setuptools import Extension, setup\n\nsetup(name="tally", version="0.1", packages=["tally"], '
        'ext_modules=[Extension("tally._speedups", ["tally/_speedups.c"])])\n',
        "tally/__init__.py": INIT,
        "tally/_tally_py.py": TWIN,
        "tally/_speedups.c": SPEEDUPS,
        "tests/test_tally.py": TESTS,
        "tests/test_compiled.py": COMPILED_TESTS,
    }
    return write_tree(root, files)


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler")
def test_the_fallback_built_as_its_own_implementation(tmp_path):
    repo = write_fallback_repo(tmp_path / "tally")
    shipped = tmp_path / "shipped.parquet"
    completed = run_cli("classbench", "build", "--repo", str(repo), "--out", str(shipped))
    assert completed.returncode == 0, completed.stderr
    card = json.loads(shipped.with_suffix(".card.json").read_text())
    assert card["resolution"]["implementation"] == {"tested": "compiled"}
    assert card["resolution"]["compiled_extensions"]["built"][0].startswith("tally/_speedups.")
    assert card["test_suite"] == {"passed": 4}
    assert card["not_runnable"]["tests"] == 0
    assert card["tasks"] == 0  # the compiled Tally ran; the twin's methods were covered by nothing

    pure = tmp_path / "pure.parquet"
    completed = run_cli("classbench", "build", "--repo", str(repo), "--pure-python", "--out", str(pure))
    assert completed.returncode == 0, completed.stderr
    card = json.loads(pure.with_suffix(".card.json").read_text())
    assert card["resolution"]["implementation"]["tested"] == "pure-python"
    assert card["resolution"]["implementation"]["switches"] == {"TALLY_NO_EXTENSIONS": "1"}
    markdown = pure.with_suffix(".card.md").read_text()
    assert "Implementation tested: pure-python (TALLY_NO_EXTENSIONS=1)." in markdown
    assert card["test_suite"] == {"passed": 3, "not runnable": 1}
    assert card["not_runnable"]["compiled_not_imported"] == {"tests": 1, "modules_not_collected": 0}
    not_imported = card["not_runnable"]["by_module"]["tally._speedups"]
    assert not_imported["tests"] == 1
    assert not_imported["left_out"] == FALLBACK_TESTED
    assert "Of them, 1 tests and 0 test modules import a compiled module of the package by name" in markdown
    (task,) = read_records(pure, ClassBenchTask)
    assert (task.file_path, task.class_name) == ("tally/_tally_py.py", "Tally")
    assert task.environment.implementation == "pure-python"
    assert card["solution_checks"]["tally._tally_py.Tally"]["passing_with_empty_class"] == 0

    candidates = tmp_path / "candidates.jsonl"
    candidates.write_text(
        "".join(
            json.dumps({"instance_id": task.task_id, "candidate_id": name, "code": code}) + "\n"
            for name, code in (("gold", reference_solution(task)), ("empty", "class Tally:\n    pass\n"))
        )
    )
    results = tmp_path / "results.parquet"
    completed = run_cli(
        "eval", "--dataset", str(pure), "--candidates", str(candidates), "--out", str(results), "--timeout", "60"
    )
    assert completed.returncode == 0, completed.stderr
    assert {r.candidate_id: r.status for r in read_records(results, Result)} == {"gold": "plausible", "empty": "wrong"}


def test_compiled_modules_under_the_tree_are_refused_to_a_pure_python_run(tmp_path):
    """The blocker alone, on a real compiled module (the standard library's _json, placed in a package)."""
    import _json

    compiled = Path(getattr(_json, "__file__", "") or "/")
    if not compiled.is_file():
        pytest.skip("this interpreter's _json is built in")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    shutil.copyfile(compiled, tmp_path / "pkg" / compiled.name)
    script = (
        "import benchsmith_directcov\n"
        "try:\n    import pkg._json\n    print('compiled')\n"
        "except ImportError as error:\n    print('refused', error.name)\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(plugin_dir()), str(tmp_path)])}
    plain = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, cwd=tmp_path)
    assert plain.stdout.strip() == "compiled", plain.stderr
    env["BENCHSMITH_PURE_PYTHON"] = str(tmp_path)
    pure = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, cwd=tmp_path)
    assert pure.stdout.strip() == "refused pkg._json", pure.stderr


def test_a_missing_module_is_the_packages_own_compiled_one_only_where_its_source_or_binary_is(tmp_path):
    tree = write_fallback_repo(tmp_path / "tally")
    (tree / "tally" / "_cy.pyx").write_text("def f():\n    return 1\n")
    (tree / "tally" / "_prebuilt.cpython-311-x86_64-linux-gnu.so").write_bytes(b"\x7fELF")
    (tree / "tally" / "_plain.py").write_text("")
    asked = {"tally._speedups", "tally._cy", "tally._prebuilt", "tally._plain", "tally._gone", "numpy", "_speedups"}
    assert compiled_modules_of(tree, "", asked) == {"tally._speedups", "tally._cy", "tally._prebuilt"}
