"""Honest tests the Python class harness still takes for tampered ones, on a repository written here.

Both were found on real repositories after main 2c9348d (inherited test methods accepted): each makes an honest gold
'wrong' ("forged") in eval while the build's own checks pass. The tests are strict xfails: they pass once directcov
accepts these tests, and then the marker must go.

* ``__warningregistry__``: ``warnings.warn`` writes it into the globals of the module it attributes a warning to,
  whatever the filters say (``-W ignore`` included). A library warning with a ``stacklevel`` that names its caller's
  caller (pg8000's DB-API extensions: ``warn("DB-API extension connection.Warning used", stacklevel=3)``) puts it in
  the test module, which then holds a name its source never binds: every later test of that module is refused, each
  with its own tampered record, and the verdict reads "forged: 1 test(s) reported more than once" (pg8000 651c6c3:
  3 of 7 golds).
* A base class named through an alias: transitions' tests/test_parallel.py does ``from .test_nesting import
  TestNestedTransitions as TestNested`` and ``class TestParallel(TestNested)``; the bases' names (``__name__``) are
  compared with the names the class statement spells, which an alias never matches (transitions 0.9.2: 5 of 8 golds).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchsmith.core.schema import ClassBenchTask, Result, read_records
from benchsmith.runners.python.class_runner import reference_solution
from tests.helpers.cli import run_cli

UNITS = '''\
"""Units a meter reads in."""

import warnings

SCALE = {"m": 1.0, "cm": 0.01}


def factor(unit):
    return SCALE[unit]


def legacy(name):
    # attributed to the caller of the caller's method: the test, as pg8000's DB-API extensions do
    warnings.warn(f"{name} is a legacy spelling", DeprecationWarning, stacklevel=3)
'''

METER = '''\
"""A meter."""

from .units import factor, legacy


class Meter:
    """Lengths added up in metres."""

    def __init__(self):
        self.metres = 0.0

    def add(self, value, unit="m"):
        self.metres += value * factor(unit)
        return self

    def total(self, unit="m"):
        return self.metres / factor(unit)

    def sum(self):
        legacy("Meter.sum")
        return self.total()
'''

RULER = '''\
"""A ruler."""

from .units import factor


class Ruler:
    """Marks along a ruler, in metres."""

    def __init__(self, length=1.0):
        self.length = length
        self.marks = []

    def mark(self, at, unit="m"):
        position = at * factor(unit)
        if not 0 <= position <= self.length:
            raise ValueError("off the ruler")
        self.marks.append(position)
        return self

    def count(self):
        return len(self.marks)
'''

TEST_METER = """\
from meter.meter import Meter


def test_add():
    assert Meter().add(2).add(50, "cm").total() == 2.5


def test_legacy_sum():
    assert Meter().add(3).sum() == 3.0


def test_total_in_cm():
    assert Meter().add(1).total("cm") == 100.0


def test_empty():
    assert Meter().total() == 0.0
"""

TEST_RULER_BASE = """\
import unittest

from meter.ruler import Ruler


class TestRulerBase(unittest.TestCase):
    length = 1.0

    def test_mark(self):
        self.assertEqual(Ruler(self.length).mark(50, "cm").count(), 1)

    def test_off_the_ruler(self):
        with self.assertRaises(ValueError):
            Ruler(self.length).mark(self.length * 2)
"""

# the base under another name, as transitions' test_parallel.py imports TestNestedTransitions as TestNested
TEST_RULER_LONG = """\
from .test_ruler_base import TestRulerBase as Base


class TestLongRuler(Base):
    length = 2.0
"""


@pytest.fixture(scope="module")
def refused_repo(tmp_path_factory) -> tuple[Path, dict[str, ClassBenchTask]]:
    root = tmp_path_factory.mktemp("refused") / "meter"
    files = {
        "pyproject.toml": '[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n\n'
        '[project]\nname = "meter"\nversion = "0.1"\n\n[tool.setuptools]\npackages = ["meter"]\n',
        "meter/__init__.py": "",
        "meter/units.py": UNITS,
        "meter/meter.py": METER,
        "meter/ruler.py": RULER,
        "tests/__init__.py": "",
        "tests/test_meter.py": TEST_METER,
        "tests/test_ruler_base.py": TEST_RULER_BASE,
        "tests/test_ruler_long.py": TEST_RULER_LONG,
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    root.chmod(0o755)
    out = root.parent / "meter.parquet"
    completed = run_cli("classbench", "build", "--repo", str(root), "--out", str(out))
    assert completed.returncode == 0, completed.stderr
    tasks = {task.class_name: task for task in read_records(out, ClassBenchTask)}
    assert {"Meter", "Ruler"} <= set(tasks), json.loads(out.with_suffix(".card.json").read_text())["rejections"]
    return out, tasks


def _verdicts(dataset: Path, task: ClassBenchTask, tmp_path: Path) -> dict[str, tuple[str, str]]:
    """The gold and the empty class of *task*, judged by ``eval``: (status, reason) of each."""
    candidates = tmp_path / "candidates.jsonl"
    candidates.write_text(
        "".join(
            json.dumps({"instance_id": task.task_id, "candidate_id": name, "code": code}) + "\n"
            for name, code in (("gold", reference_solution(task)), ("empty", f"class {task.class_name}:\n    pass\n"))
        )
    )
    results = tmp_path / "results.parquet"
    completed = run_cli(
        "eval", "--dataset", str(dataset), "--candidates", str(candidates), "--out", str(results), "--timeout", "60"
    )
    assert completed.returncode == 0, completed.stderr
    return {r.candidate_id: (r.status, r.reason) for r in read_records(results, Result)}


@pytest.mark.xfail(strict=True, reason="directcov refuses a test module holding __warningregistry__")
def test_a_warning_attributed_to_a_test_leaves_the_gold_plausible(refused_repo, tmp_path):
    dataset, tasks = refused_repo
    # a test that runs after the one that warns, in the same module
    assert {"tests/test_meter.py::test_legacy_sum", "tests/test_meter.py::test_total_in_cm"} <= set(
        tasks["Meter"].test_directives
    )
    verdicts = _verdicts(dataset, tasks["Meter"], tmp_path)
    assert verdicts["empty"][0] == "wrong", verdicts
    assert verdicts["gold"][0] == "plausible", verdicts


@pytest.mark.xfail(strict=True, reason="directcov compares a base's __name__ with the name its class statement spells")
def test_a_base_class_imported_under_another_name_leaves_the_gold_plausible(refused_repo, tmp_path):
    dataset, tasks = refused_repo
    assert "tests/test_ruler_long.py::TestLongRuler::test_mark" in tasks["Ruler"].test_directives
    verdicts = _verdicts(dataset, tasks["Ruler"], tmp_path)
    assert verdicts["empty"][0] == "wrong", verdicts
    assert verdicts["gold"][0] == "plausible", verdicts
