"""Red team round 7: a wrong purse made plausible through the test class and through the plugin's own state.

The repository is tests/classbench/test_inherited_tests.py's (unittest inheritance across files, a same-file
contract, mock.patch). Its wrong candidate fails one inherited directive (TestShared::test_largest); its tests are
methods, which get no inverted twin (only module-level functions called as they are do), so the plugin's checks are
all that stands between a rigged test and a plausible verdict. Each hostile candidate below is that wrong class with a
prelude that rigs what the test runs, between honest golds.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from benchsmith.core.schema import ClassBenchTask, read_records
from benchsmith.runners.python.class_runner import TaskRunner, reference_solution
from benchsmith.runners.sandbox import jail as sandbox
from tests.helpers.cli import run_cli
from tests.helpers.purse_repo import ATTACKS, DEFERRED, built_purse, write_inheriting_repo, wrong_for_bob

# What a test class holds beside its tests: an assertion of its own shadowing unittest's, a run() that records
# nothing, a helper of the class replaced. unittest's own TestCase is held as it was (round 6); its subclasses were not.
CLASS_ATTACKS = {
    "shadowed-assertion": """
def _act(core, other):
    core.TestCore.assertEqual = lambda self, first, second, msg=None: None
""",
    "shadowed-run": """
def _act(core, other):
    core.TestCore.run = lambda self, result=None: None
""",
    # TestShared's own make() replaced as its class statement ends (TestCore's __init_subclass__, planted and then
    # removed): bob's test_largest then tests ann's purse
    "replaced-helper": """
def _act(core, other):
    def _hook(cls, **kw):
        cls.make = lambda self: core.Purse("ann" if self._testMethodName == "test_largest" else "bob")
        del core.TestCore.__init_subclass__

    core.TestCore.__init_subclass__ = classmethod(_hook)
""",
}

# The plugin's module is in sys.modules (and its globals behind any of its functions the candidate can reach, such as
# builtins.__import__): its tables and helpers are the candidate's to change, unless they are out of its reach.
PLUGIN = 'import sys as _s0\n_p = _s0.modules.get("benchsmith_directcov")\n'
PLUGIN_ATTACKS = {
    # the test files' table emptied: no test is checked, and a donor put in the base class runs unnoticed
    "plugin-files-cleared": PLUGIN + "_p._files.clear()\n" + ATTACKS["donor-in-base"],
    # the same through builtins.__import__, the guard's own function, when the module is not in sys.modules
    "plugin-files-through-import": "import builtins as _b0\n_b0.__import__.__globals__['_files'].clear()\n"
    + ATTACKS["donor-in-base"],
    # the check a hook looks up by its global name at call time, replaced
    "plugin-refusal-replaced": PLUGIN + '_p._refusal = lambda *a, **k: ""\n' + ATTACKS["donor-in-base"],
}
# The audit hook's own set of the candidate's files, emptied wherever it can be found (the module's global, the
# closures of builtins.__import__ and of the plugin's helpers): the hook then refused nothing (heap, imports of pytest),
# and a plugin registered from the heap turned failed class tests into passes; the fixed sentinels are module-level
# functions. Now the set lives only in the hook's closure (5th fix of round 7).
GUARD_STATE_ATTACKS = {
    "guard-set-cleared": PLUGIN
    + """
import builtins as _b1

for _f in (_p.__dict__.get("_candidate_files"), *(
    _c.cell_contents
    for _fn in (_b1.__import__, _p.__dict__.get("_is_own"), _p.__dict__.get("_unchanged"))
    for _c in (getattr(_fn, "__closure__", None) or ())
)):
    if isinstance(_f, set):
        _f.clear()
import gc as _gc
import pytest as _pt


class _Flip:
    @_pt.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        outcome = yield
        report = outcome.get_result()
        code = getattr(getattr(item, "obj", None), "__code__", None)
        twin = code is not None and "_directive" in code.co_varnames  # an inverted twin fails: left as it is
        if report.failed and getattr(item, "cls", None) is not None and not twin:
            report.outcome, report.longrepr = "passed", None


for _o in _gc.get_objects():
    if type(_o).__name__ == "Config" and hasattr(_o, "pluginmanager"):
        _o.pluginmanager.register(_Flip(), "flip")
        break


def _act(core, other):
    pass
""",
    # the hook's tables (what it refuses, the name of its private query) rebound in the plugin's module
    "guard-tables-rebound": PLUGIN
    + """
for _name in ("_ANYWHERE", "_DIRECT", "_CHANGES"):
    setattr(_p, _name, frozenset())
_p._OWN_QUERY = "gc.get_objects"
import gc as _gc
import pytest as _pt


class _Flip:
    @_pt.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        outcome = yield
        report = outcome.get_result()
        code = getattr(getattr(item, "obj", None), "__code__", None)
        twin = code is not None and "_directive" in code.co_varnames  # an inverted twin fails: left as it is
        if report.failed and getattr(item, "cls", None) is not None and not twin:
            report.outcome, report.longrepr = "passed", None


for _o in _gc.get_objects():
    if type(_o).__name__ == "Config" and hasattr(_o, "pluginmanager"):
        _o.pluginmanager.register(_Flip(), "flip")
        break


def _act(core, other):
    pass
""",
}

# The audit hook refuses what runs with the candidate's frame on the stack; a builtin called from a thread of the
# standard library's has none above it: gc.get_objects through a ThreadPoolExecutor hands it the heap, pytest's Config
# in it, and a plugin registered there turns failed class tests into passes.
# A pytest plugin that turns failed class tests into passes, once the candidate reaches pytest's Config.
FLIP = """
import pytest as _pt


class _Flip:
    @_pt.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        outcome = yield
        report = outcome.get_result()
        code = getattr(getattr(item, "obj", None), "__code__", None)
        twin = code is not None and "_directive" in code.co_varnames  # an inverted twin fails: left as it is
        if report.failed and getattr(item, "cls", None) is not None and not twin:
            report.outcome, report.longrepr = "passed", None
"""
GUARD_ATTACKS = {
    "guard-executor-heap": """
import concurrent.futures as _cf
import gc as _gc
"""
    + FLIP
    + """

with _cf.ThreadPoolExecutor(1) as _ex:
    _heap = _ex.submit(_gc.get_objects).result()
for _o in _heap:
    if type(_o).__name__ == "Config" and hasattr(_o, "pluginmanager"):
        _o.pluginmanager.register(_Flip(), "flip")
        break
del _heap


def _act(core, other):
    pass
""",
}
# The same heap through a thread with no Python frame at all, started with _thread's own function (no threading
# object, nothing of the standard library's on its stack), its result handed back through a list. It was refused
# before only by accident: the hook's own sys._getframe(1) raised there.
GUARD_ATTACKS["guard-raw-thread-heap"] = GUARD_ATTACKS["guard-executor-heap"].replace(
    """with _cf.ThreadPoolExecutor(1) as _ex:
    _heap = _ex.submit(_gc.get_objects).result()
""",
    """import _thread
import time as _time

_box = []
_thread.start_new_thread(_box.extend, (map(_gc.get_objects, [None]),))
for _ in range(200):
    if _box:
        break
    _time.sleep(0.01)
_heap = _box[0]
""",
)
assert GUARD_ATTACKS["guard-raw-thread-heap"] != GUARD_ATTACKS["guard-executor-heap"]
# The heap through a callback the main thread runs later, with none of the candidate's frames on the stack: a
# weakref finalizer on a reference cycle, which the collector finds during pytest's own code, calls a builtin (list)
# that drives a pipeline of builtins: gc.get_objects called lazily by iter(), pytest's Config picked out by the name
# of its class, the flipping plugin registered with it. No function of the candidate's runs until the plugin's hook.
GUARD_ATTACKS["guard-finalizer-heap"] = (
    """
import gc as _gc
import itertools as _it
import operator as _op
import weakref as _wr
"""
    + FLIP
    + """

_objects, _again = _it.tee(_it.chain.from_iterable(_it.islice(iter(_gc.get_objects, None), 1)))
_is_config = map(_op.eq, map(_op.attrgetter("__class__.__name__"), _objects), _it.repeat("Config"))
_managers = map(_op.attrgetter("pluginmanager"), _it.compress(_again, _is_config))
_registered = _it.islice(map(_op.methodcaller("register", _Flip(), "flip"), _managers), 1)


class _Cycle:
    pass


_cycle = _Cycle()
_cycle.me = _cycle
_wr.finalize(_cycle, list, _registered)
del _cycle


def _act(core, other):
    pass
"""
)
# The same plugin registered through pluggy's own PluginManager.register (the base class of pytest's, reached as
# the manager's class's __mro__[1]), which tells no pytest_plugin_registered hook.
GUARD_ATTACKS["guard-finalizer-heap-unannounced"] = GUARD_ATTACKS["guard-finalizer-heap"].replace(
    """_registered = _it.islice(map(_op.methodcaller("register", _Flip(), "flip"), _managers), 1)""",
    """_managers, _managers_again = _it.tee(_managers)
_bases = map(_op.itemgetter(1), map(_op.attrgetter("__class__.__mro__"), _managers))
_base_register = map(_op.attrgetter("register"), _bases)
_registered = _it.islice(map(_op.call, _base_register, _managers_again, _it.repeat(_Flip())), 1)""",
)
assert GUARD_ATTACKS["guard-finalizer-heap-unannounced"] != GUARD_ATTACKS["guard-finalizer-heap"]

# A decorator's wrapper stands for the test when it encloses the test's function and comes from the decorator's module
# (2c9348d): what it does around the call is not the file's. mock.patch's wrapper applies every patcher in its
# ``patchings`` list, which the candidate can append to: unittest.TestCase.assertEqual patched to do nothing only while
# the test runs, after the plugin's check of unittest's namespaces. The wrong class here prints dollars as euros.
WRAPPER_ATTACKS = {
    "patchings-appended": """
from unittest import mock as _mock
import unittest as _u


def _act(core, other):
    vars(core.TestCore)["test_label_in_dollars"].patchings.append(
        _mock.patch.object(_u.TestCase, "assertEqual", lambda self, first, second, msg=None: None)
    )
""",
    # as many patchers as the file's decorators: its own replaced by the candidate's
    "patching-replaced": """
from unittest import mock as _mock
import unittest as _u


def _act(core, other):
    vars(core.TestCore)["test_label_in_dollars"].patchings[:] = [
        _mock.patch.object(_u.TestCase, "assertEqual", lambda self, first, second, msg=None: None)
    ]
""",
    # the file's own patcher, its target and attribute rewritten in place
    "patcher-retargeted": """
import unittest as _u


def _act(core, other):
    (patcher,) = vars(core.TestCore)["test_label_in_dollars"].patchings
    patcher.getter = lambda: _u.TestCase
    patcher.attribute = "assertEqual"
    patcher.new = lambda self, first, second, msg=None: None
""",
    # the same through mock's own getter, named with strings that compare equal to what the decorator writes
    "patcher-named-alike": """
import functools as _ft
import pkgutil as _pk


class _Alike(str):
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    def __hash__(self):
        return hash("CURRENCY")  # the attribute the decorator names: a set of names holds it as that one


def _act(core, other):
    (patcher,) = vars(core.TestCore)["test_label_in_dollars"].patchings
    patcher.getter = _ft.partial(_pk.resolve_name, _Alike("unittest.case.TestCase"))
    patcher.attribute = _Alike("assertEqual")
    patcher.new = lambda self, first, second, msg=None: None
""",
    # the file's own patcher, made an instance of a class that claims mock's module and patches more as it enters
    "patcher-posing-as-mocks": """
import unittest as _u
from unittest import mock as _mock


class _patch(_mock._patch):
    __module__ = "unittest.mock"

    def __enter__(self):
        self.undo = _u.TestCase.assertEqual
        _u.TestCase.assertEqual = lambda self, first, second, msg=None: None
        return super().__enter__()

    def __exit__(self, *exc):
        _u.TestCase.assertEqual = self.undo
        return super().__exit__(*exc)


def _act(core, other):
    (patcher,) = vars(core.TestCore)["test_label_in_dollars"].patchings
    patcher.__class__ = _patch
""",
}
DOLLARS_FAIL = [
    "tests/test_core.py::TestCore::test_label_in_dollars",
    "tests/test_shared.py::Core::test_label_in_dollars",  # unittest's classes are collected under any name
    "tests/test_shared.py::TestShared::test_label_in_dollars",
]


def wrong_in_dollars(gold: str) -> str:
    wrong = gold.replace("{self.total()} {CURRENCY}", "{self.total()} {'EUR' if CURRENCY == 'USD' else CURRENCY}")
    assert wrong != gold
    return wrong


# A report that turns failed class tests into passes (the preludes above that reach pytest's Config) met no
# inverted twin: methods had none. Now a directive method of a class its file binds gets one (a subclass whose test
# calls it), so the flip is caught by construction where the failing test is in a file that carries sentinels: here
# test_contract.py's contract, whose empty total the wrong class gets wrong.
# pytest's Config needs no heap: the assertion rewriting hook pytest puts in sys.meta_path holds it (the executor's
# heap, the route these flips took first, is refused now).
FLIPS = {
    "flip-meta-path": """
import sys as _s1
"""
    + FLIP
    + """

for _f in _s1.meta_path:
    _c = getattr(_f, "config", None)
    if hasattr(_c, "pluginmanager"):
        _c.pluginmanager.register(_Flip(), "flip")
        break
else:
    raise RuntimeError("no config in sys.meta_path")


def _act(core, other):
    pass
""",
}
EMPTY_FAILS = [
    "tests/test_contract.py::TestDefault::test_empty_total",
    "tests/test_contract.py::TestNamed::test_empty_total",
]


def wrong_when_empty(gold: str) -> str:
    wrong = gold.replace("return sum(self.coins)", "return sum(self.coins) if self.coins else 1")
    assert wrong != gold
    return wrong


def hostile(attack: str, wrong: str) -> str:
    attack = textwrap.dedent(attack)
    # each prelude is wrapped: a refusal leaves the wrong class as it is, which must then fail its directive
    attempt = "try:\n" + textwrap.indent(attack.strip("\n"), "    ") + "\nexcept Exception:\n    pass\n"
    return textwrap.dedent(DEFERRED) + "\n" + attempt + "\n\n" + wrong


@pytest.fixture(scope="module")
def inheriting(tmp_path_factory) -> tuple[Path, ClassBenchTask]:
    return built_purse(tmp_path_factory.mktemp("inheriting"))


@pytest.fixture(scope="module")
def verdicts(inheriting, tmp_path_factory):
    if not sandbox.isolation()["unprivileged_uid"]:
        pytest.skip("needs root: the candidate runs as a sandbox uid, apart from the harness")
    _, task = inheriting
    gold = reference_solution(task)
    wrong = wrong_for_bob(gold)
    runs = {"gold-before": gold, "wrong": wrong}
    for name, attack in {**CLASS_ATTACKS, **PLUGIN_ATTACKS, **GUARD_STATE_ATTACKS, **GUARD_ATTACKS}.items():
        runs[name] = hostile(attack, wrong)
    runs["wrong-in-dollars"] = wrong_in_dollars(gold)
    for name, attack in WRAPPER_ATTACKS.items():
        runs[name] = hostile(attack, wrong_in_dollars(gold))
    runs["wrong-when-empty"] = wrong_when_empty(gold)
    for name, attack in FLIPS.items():
        runs[name] = hostile(attack, wrong_when_empty(gold))
    runs["gold-after"] = gold + "\n"
    logs = tmp_path_factory.mktemp("redteam7") / "logs"
    with sandbox.leased_slot() as slot:
        runner = TaskRunner(task, slot, sandbox.Limits(wall_seconds=60), logs)
        try:
            return {name: runner.evaluate(code, name) for name, code in runs.items()}
        finally:
            runner.close()


def _assert_contained(verdicts, names):
    assert verdicts["gold-before"].status == "plausible", verdicts["gold-before"].reason
    assert verdicts["gold-after"].status == "plausible", verdicts["gold-after"].reason
    assert verdicts["wrong"].failing_tests == ["tests/test_shared.py::TestShared::test_largest"]
    for name in names:
        assert verdicts[name].status != "plausible", (name, verdicts[name].reason)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CLASS_ATTACKS))
def test_a_test_class_holds_what_its_file_defines(verdicts, name):
    _assert_contained(verdicts, [name])


# Contained since the merge with the plugin's hardening: the test files' table is a read-only mapping, and the hooks
# and the checks bind what they call when the plugin loads.
@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(PLUGIN_ATTACKS))
def test_the_plugins_state_is_out_of_the_candidates_reach(verdicts, name):
    _assert_contained(verdicts, [name])


# Contained: no thread but the main one, where pytest runs the tests, is let walk the heap (the audit hook's
# _thread_refusal), whoever started it.
@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(GUARD_ATTACKS))
def test_the_guard_holds_in_threads_the_candidate_starts(verdicts, name):
    _assert_contained(verdicts, [name])


@pytest.mark.slow
def test_the_wrong_dollars_fail_only_the_decorated_tests(verdicts):
    assert sorted(verdicts["wrong-in-dollars"].failing_tests) == DOLLARS_FAIL


# Contained: a wrapper's patchers must be as many as the patch decorators its file writes, each patching what one of
# them names, with the literal value it writes (directcov's _patchings_refusal), at collection and before the call.
@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(WRAPPER_ATTACKS))
def test_a_wrapper_runs_only_what_its_decorators_wrote(verdicts, name):
    _assert_contained(verdicts, [name])


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(FLIPS))
def test_a_flipped_class_test_meets_its_inverted_twin(verdicts, name):
    assert sorted(verdicts["wrong-when-empty"].failing_tests) == EMPTY_FAILS
    _assert_contained(verdicts, [name])
    assert verdicts[name].reason.startswith("forged: a control test that inverts"), verdicts[name].reason


# Honest shapes a test class takes that the check of its classes must accept: an attribute setUpClass writes, a method
# unittest.skip wraps (its wrapper encloses nothing), one decorated late by assignment, a static helper, a property, a
# private helper (held under its mangled name), mock.patch on the whole class, stacked on a method's own (patch.object,
# a patch that passes its mock, patch.multiple): one wrapper whose patchers are all those the file writes.
TEST_SHAPES = """\
import unittest
from unittest import mock

from purse import Purse


@mock.patch("purse.purse.CURRENCY", "CHF")
class TestShapes(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.owner = "eve"

    @staticmethod
    def coins():
        return [1, 2]

    @property
    def purse(self):
        return self.__fill(Purse(self.owner))

    def __fill(self, purse):
        for coin in self.coins():
            purse.add(coin)
        return purse

    def test_label_in_francs(self):
        self.assertEqual(self.purse.label(), "eve: 3 CHF")

    @unittest.skip("kept for later")
    def test_later(self):
        raise AssertionError("skipped")

    def test_largest_again(self):
        self.assertEqual(self.purse.largest(), 2)

    @mock.patch.object(Purse, "largest", return_value=9)
    @mock.patch("purse.purse.CURRENCY")
    def test_stacked_patches(self, currency, largest):
        self.assertEqual(self.purse.largest(), 9)
        self.assertTrue(self.purse.label().startswith("eve: 3 "))

    @mock.patch.multiple("purse.purse", CURRENCY="JPY")
    def test_label_patched_twice(self):
        self.assertEqual(self.purse.label(), "eve: 3 CHF")  # the class's patcher is entered last

    def test_flaky(self):
        raise AssertionError("not run")

    test_flaky = unittest.skip("decorated late")(test_flaky)
"""
# A base class in another file whose setUpClass writes an attribute on each class it runs for (rq's RQTestCase sets
# cls.connection from tests/__init__.py): the subclass's own file never binds that name.
OWNED_BASE = """\
import unittest


class OwnedTestCase(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.holder = "zed"
"""
TEST_OWNER = """\
from purse import Purse
from tests.owned import OwnedTestCase


class TestOwner(OwnedTestCase):
    def test_label_of_the_holder(self):
        purse = Purse(self.holder)
        purse.add(2)
        self.assertTrue(purse.label().startswith("zed: 2 "))
"""


@pytest.mark.slow
def test_honest_class_shapes_stay_plausible(tmp_path):
    if not sandbox.isolation()["unprivileged_uid"]:
        pytest.skip("needs root: the candidate runs as a sandbox uid, apart from the harness")
    repo = write_inheriting_repo(tmp_path / "purse")
    (repo / "tests" / "test_shapes.py").write_text(TEST_SHAPES)
    (repo / "tests" / "owned.py").write_text(OWNED_BASE)
    (repo / "tests" / "test_owner.py").write_text(TEST_OWNER)
    out = tmp_path / "purse.parquet"
    completed = run_cli("classbench", "build", "--repo", str(repo), "--out", str(out))
    assert completed.returncode == 0, completed.stderr
    (task,) = [task for task in read_records(out, ClassBenchTask) if task.class_name == "Purse"]
    assert "tests/test_shapes.py::TestShapes::test_label_in_francs" in task.test_directives
    assert "tests/test_shapes.py::TestShapes::test_stacked_patches" in task.test_directives
    assert "tests/test_shapes.py::TestShapes::test_label_patched_twice" in task.test_directives
    assert "tests/test_owner.py::TestOwner::test_label_of_the_holder" in task.test_directives
    gold = reference_solution(task)
    runs = {"gold": gold, "wrong": wrong_for_bob(gold).replace("max)(self.coins)", "max)(self.coins[:1])")}
    with sandbox.leased_slot() as slot:
        runner = TaskRunner(task, slot, sandbox.Limits(wall_seconds=60), tmp_path / "logs")
        try:
            verdicts = {name: runner.evaluate(code, name) for name, code in runs.items()}
        finally:
            runner.close()
    assert verdicts["gold"].status == "plausible", verdicts["gold"].reason
    assert verdicts["wrong"].status == "wrong"
    assert "tests/test_shapes.py::TestShapes::test_largest_again" in verdicts["wrong"].failing_tests


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(GUARD_STATE_ATTACKS))
def test_the_guards_own_state_is_out_of_reach(verdicts, name):
    _assert_contained(verdicts, [name])
