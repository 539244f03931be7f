"""directcov's guard: what the candidate's module is refused while its code is on the stack, and what honest code
(its own, the project's, the standard library's, pytest's) still does. Runs pytest on a small tree, unsandboxed."""

import os
import subprocess
import sys
import textwrap

import pytest

from benchsmith.runners.python.pytest_run import plugin_dir

CANDIDATE = """
import concurrent.futures, dataclasses, collections, inspect, logging, traceback, warnings
import helper  # a project module that loads ctypes for itself


@dataclasses.dataclass
class Box:
    size: int


Pair = collections.namedtuple("Pair", "a b")


class Candidate:
    def honest(self):
        warnings.warn("old", DeprecationWarning)
        logging.getLogger("x").warning("logged")
        try:
            raise ValueError("x")
        except ValueError:
            text = traceback.format_exc()
        assert "ValueError" in text and "".join(traceback.format_stack())
        assert list(inspect.signature(Box).parameters) == ["size"]
        helper._compile_bytecode()
        return Box(3).size + Pair(1, 2).b + helper.absolute(-4) + helper.Entry("e").size

    def attempt(self, what):
        import gc, importlib, sys
        attempts = {
            "gc": lambda: gc.get_objects(),
            "referrers": lambda: gc.get_referrers(self),
            "getframe": lambda: sys._getframe(0),
            "currentframe": lambda: inspect.currentframe(),
            "stack": lambda: inspect.stack(),
            "walk_stack": lambda: next(traceback.walk_stack(None)),
            "tb_frame": lambda: self._traceback().tb_frame,
            "settrace": lambda: sys.settrace(lambda *a: None),
            "setprofile": lambda: sys.setprofile(lambda *a: None),
            "current_frames": lambda: sys._current_frames(),
            "ctypes": lambda: importlib.import_module("ctypes").pythonapi.PyEval_GetFrame,
            "code_replace": lambda: self.honest.__code__.replace(co_name="other"),
            "set_code": lambda: setattr(Candidate.honest, "__code__", Candidate.attempt.__code__),
            "others_defaults": lambda: setattr(helper.absolute, "__defaults__", (1,)),
            "code_new_elsewhere": lambda: helper._another_name(),
            "import_pytest_internals": lambda: exec("import _pytest.reports", {"__file__": __file__}),
            "compiled_elsewhere": lambda: exec(compile("import sys\\nsys._getframe(0)", "/usr/lib/python3/fake.py", "exec")),
            # a standard-library thread calls the builtin for it: none of its frames is on that thread's stack
            "pool_gc": lambda: concurrent.futures.ThreadPoolExecutor(1).submit(gc.get_objects).result(),
            # a pool the tests started before any candidate code ran, which runs whatever is submitted to it
            "earlier_pool_gc": lambda: helper.POOL.submit(gc.get_objects).result(),
            "earlier_pool_defaults": lambda: helper.POOL.submit(setattr, helper.absolute, "__defaults__", (1,)).result(),
            "earlier_pool_code": lambda: helper.POOL.submit(setattr, helper.absolute, "__code__", Candidate.honest.__code__).result(),
            "earlier_pool_trace": lambda: helper.POOL.submit(sys.settrace, print).result(),
            "earlier_pool_compiled": lambda: exec(
                helper.POOL.submit(compile, "import sys\\nsys._getframe(0)", "/usr/lib/python3/fake2.py", "exec").result()
            ),
        }
        try:
            attempts[what]()
        except (RuntimeError, ImportError) as exc:
            assert "benchsmith" in str(exc), exc
            return "refused"
        return "allowed"

    def _traceback(self):
        try:
            raise KeyError
        except KeyError as exc:
            return exc.__traceback__
"""

HELPER = """
import ctypes
import typing


class Entry(typing.NamedTuple):  # its __new__ gets defaults while the candidate's module imports this one
    name: str
    size: int = 0

def absolute(value):
    return ctypes.CDLL(None).abs(value)
"""

ATTEMPTS = [
    "gc",
    "referrers",
    "getframe",
    "currentframe",
    "stack",
    "walk_stack",
    "tb_frame",
    "settrace",
    "setprofile",
    "current_frames",
    "ctypes",
    "code_replace",
    "set_code",
    "others_defaults",
    "code_new_elsewhere",
    "import_pytest_internals",
    "compiled_elsewhere",
    "pool_gc",
    "earlier_pool_gc",
    "earlier_pool_defaults",
    "earlier_pool_code",
    "earlier_pool_trace",
    "earlier_pool_compiled",
]

TESTS = """
import gc, sys, inspect
import pytest
from candidate import Candidate
import helper

# a pool started before any candidate code runs (a session fixture's), its thread alive
import concurrent.futures
helper.POOL = concurrent.futures.ThreadPoolExecutor(1)
helper.POOL.submit(int).result()

# What Python 3.8's import system does when it loads a module's cached bytecode: marshal raises code.__new__ (later
# Pythons raise marshal.loads there), its caller the frozen importlib's _compile_bytecode. Compiled here, where no
# candidate code runs.
exec(compile("import sys\\ndef _compile_bytecode():\\n    sys.audit('code.__new__')\\n"
             "def _another_name():\\n    sys.audit('code.__new__')\\n",
             "<frozen importlib._bootstrap_external>", "exec"), helper.__dict__)


def test_honest_code_runs():
    assert Candidate().honest() == 9


@pytest.mark.parametrize("what", {attempts!r})
def test_refused(what):
    assert Candidate().attempt(what) == "refused"


def test_the_tests_own_code_is_not_the_candidates():
    assert gc.get_objects() and sys._getframe(0) and inspect.currentframe()


def test_honest_code_runs_in_threads():
    # what honest threads do: the candidate's code, a named tuple with defaults and a dataclass made there, under the
    # profiler threading installs as each starts (coverage's tracer, the plugin's direct coverage)
    import collections, concurrent.futures, dataclasses, threading

    threading.setprofile(lambda *a: None)
    try:
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            assert pool.submit(Candidate().honest).result() == 9
            assert pool.submit(lambda: collections.namedtuple("P", "a b", defaults=(1,))(2).b).result() == 1
            made = pool.submit(lambda: dataclasses.make_dataclass("D", [("x", int, dataclasses.field(default=4))]))
            assert made.result()().x == 4
            assert helper.POOL.submit(Candidate().honest).result() == 9
    finally:
        threading.setprofile(None)
"""


@pytest.fixture(scope="module")
def guarded_run(tmp_path_factory) -> subprocess.CompletedProcess:
    root = tmp_path_factory.mktemp("guarded")
    (root / "candidate.py").write_text(textwrap.dedent(CANDIDATE))
    (root / "helper.py").write_text(textwrap.dedent(HELPER))
    (root / "test_candidate.py").write_text(TESTS.format(attempts=ATTEMPTS))
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(plugin_dir()), str(root)]),
        "BENCHSMITH_CANDIDATE": str(root / "candidate.py"),
        "PYTHONDONTWRITEBYTECODE": "1",
        "BENCHSMITH_DIRECTCOV": "1",  # its profiler is installed in every thread a test starts, and removes itself
    }
    env.pop("BENCHSMITH_REPORT_FD", None)
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-p",
            "benchsmith_directcov",
            "-W",
            "ignore::DeprecationWarning",
            str(root / "test_candidate.py"),
        ],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_guard_refuses_the_candidate_and_lets_honest_code_run(guarded_run):
    assert guarded_run.returncode == 0, guarded_run.stdout[-4000:]
    assert f"{len(ATTEMPTS) + 3} passed" in guarded_run.stdout


def test_without_a_candidate_named_nothing_is_refused(tmp_path):
    (tmp_path / "test_free.py").write_text(
        "import gc, sys\n\ndef test_free():\n    assert gc.get_objects() and sys._getframe(0)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(plugin_dir())}
    env.pop("BENCHSMITH_CANDIDATE", None)
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-p",
            "benchsmith_directcov",
            str(tmp_path / "test_free.py"),
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert completed.returncode == 0, completed.stdout[-2000:]
