"""Red team, round 8, Python: a candidate that rewrites a test file pytest has not imported yet.

A candidate's module is imported while the first test module that needs it runs; the other test modules of the run
are imported after. The plugin reads each test file's facts (its tests' names and lines) when it loads, and a test is
accepted when its code object's file, name and first line are those facts' (benchsmith/runners/python/directcov.py):
a file rewritten before pytest imports it, its ``def`` lines where they were, passes those checks. Where the trees are
the sandbox uid's to write, the candidate can do so: in copies mode ``_materialise`` handed the whole copied tree to
the sandbox uid, and the candidate below was plausible. A copy now has the owners and modes a jail's copy-on-write tree
shows (its top folder the sandbox uid's, the rest as in the view).

The repository (written here): ``tests/test_a.py`` imports the class first; ``tests/test_b.py``'s test is a method
(no inverted twin copies a method) that the wrong class fails, in a file nothing inherits from.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from benchsmith.core.schema import ClassBenchTask, read_records
from benchsmith.runners.python.class_runner import TaskRunner, reference_solution
from benchsmith.runners.sandbox import jail as sandbox
from tests.helpers.cli import run_cli
from tests.helpers.sandbox_tree import write_tree

pytestmark = pytest.mark.java  # nothing of Java's: the sandbox's uids and the repository's environment, as the others

STEPS = '''\
"""How a counter moves."""

STEP = 1


def checked(by):
    if by <= 0:
        raise ValueError("a counter only counts up")
    return by
'''

COUNTER = '''\
"""A counter."""

from .steps import STEP, checked


class Counter:
    """Counts up from a start."""

    def __init__(self, start=0):
        self.value = start

    def up(self, by=STEP):
        self.value += checked(by)
        return self

    def doubled(self):
        return self.value * 2
'''

TEST_A = """\
from tally import Counter


def test_starts_where_asked():
    assert Counter(3).value == 3


def test_counts_up():
    assert Counter().up().up(2).value == 3
"""

TEST_B = """\
from tally import Counter


class TestDoubled:
    def test_doubled(self):
        assert Counter(4).doubled() == 8

    def test_doubled_after_counting(self):
        assert Counter(1).up().doubled() == 4
"""

# The test file's assertions turned into ones that hold, line for line: its names, lines and imports are as they were.
REWRITES_TEST_B = """
import os as _o

_b = _o.path.join(_o.path.dirname(_o.path.dirname(_o.path.abspath(__file__))), "tests", "test_b.py")
try:
    with open(_b, encoding="utf-8") as _f:
        _text = _f.read()
    _text = _text.replace("assert Counter(4).doubled() == 8", "assert Counter(4) is not None")
    _text = _text.replace("assert Counter(1).up().doubled() == 4", "assert Counter(1) is not None")
    with open(_b, "w", encoding="utf-8") as _f:
        _f.write(_text)
except OSError:
    pass
"""


@pytest.fixture(scope="module")
def tally(tmp_path_factory) -> ClassBenchTask:
    root = tmp_path_factory.mktemp("tally")
    repo = write_tree(
        root / "tally",
        {
            "pyproject.toml": '[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n'
            '\n[project]\nname = "tally"\nversion = "0.1"\n\n[tool.setuptools]\npackages = ["tally"]\n',
            "tally/__init__.py": "from .counter import Counter\n",
            "tally/counter.py": COUNTER,
            "tally/steps.py": STEPS,
            "tests/__init__.py": "",
            "tests/test_a.py": TEST_A,
            "tests/test_b.py": TEST_B,
        },
    )
    out = root / "tally.parquet"
    completed = run_cli("classbench", "build", "--repo", str(repo), "--out", str(out))
    assert completed.returncode == 0, completed.stderr
    (task,) = [t for t in read_records(out, ClassBenchTask) if t.class_name == "Counter"]
    assert {d.split("::", 1)[0] for d in task.test_directives} == {"tests/test_a.py", "tests/test_b.py"}, task
    return task


def tree_digest(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def test_a_test_file_rewritten_before_its_import_is_caught(tally, tmp_path, monkeypatch):
    """Copies mode; a jail's copy-on-write tree shows the test files as the view's (root's, read-only), and the same
    candidate was wrong there before too (the red team's report)."""
    if not sandbox.isolation()["unprivileged_uid"]:
        pytest.skip("needs root: the candidate runs as a sandbox uid, apart from the harness")
    layers = {**sandbox.isolation(), "mount_namespace": False, "pid_namespace": False, "private_tmp": False}
    monkeypatch.setattr(sandbox, "isolation", lambda: layers)
    gold = reference_solution(tally)
    wrong = gold.replace("return self.value * 2", "return self.value + 2")
    assert wrong != gold
    runs = {
        "gold-before": gold,
        "wrong": wrong,
        "rewrites-test-b": REWRITES_TEST_B + "\n\n" + wrong,
        "gold-after": gold + "\n",
        "wrong-after": wrong + "\n",
    }
    pristine = Path(os.environ["BENCHSMITH_CACHE"]) / "classbench" / "sources"
    before = tree_digest(pristine)
    with sandbox.leased_slot() as slot:
        runner = TaskRunner(tally, slot, sandbox.Limits(wall_seconds=60), tmp_path / "logs")
        try:
            verdicts = {name: runner.evaluate(code, name) for name, code in runs.items()}
        finally:
            runner.close()
    assert verdicts["gold-before"].status == verdicts["gold-after"].status == "plausible", verdicts
    assert verdicts["wrong"].status == verdicts["wrong-after"].status == "wrong", verdicts
    assert verdicts["rewrites-test-b"].status != "plausible", verdicts["rewrites-test-b"]
    assert tree_digest(pristine) == before
