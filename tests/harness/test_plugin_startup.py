"""directcov's start-up and its tripwire on pytest's namespaces, in pieces: the test files read when the plugin loads
(on every Python a task's environment may have), and the snapshot of pytest's, pluggy's and unittest's namespaces
each check compares with. Whole runs with hostile candidates are tests/harness/test_redteam_python.py's."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import types

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


@pytest.fixture(scope="module")
def plugin() -> types.ModuleType:
    """The plugin as a run loads it, in this process: no candidate, no selection, so no guard and no test files."""
    spec = importlib.util.spec_from_file_location("directcov_probe", plugin_dir() / "benchsmith_directcov.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


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
sys.modules["pytest"] = types.SimpleNamespace(hookimpl=lambda **kw: (lambda f: f), Class=type)  # no pytest there
namespace = {{"__name__": "directcov"}}
exec(compile(open({str(plugin_dir() / "benchsmith_directcov.py")!r}).read(), "directcov.py", "exec"), namespace)
entry = namespace["_TestFile"]({str(source)!r}, ast.parse(open({str(source)!r}).read()))
probe, other = types.ModuleType("probe"), types.ModuleType("other")
probe.f, probe.g, other.h = len, max, abs  # two namespaces, one with one entry (operator.call: 3.11 on)
frozen = namespace["_frozen"]([("probe", vars(probe), {{"f": len, "g": max}}), ("other", vars(other), {{"h": abs}})])
compared = [namespace["_replaced"](frozen)]
other.h = min
compared.append(namespace["_replaced"](frozen))
print(json.dumps([sorted(entry.bound), entry.lines, entry.dynamic, sorted(entry.imported), compared]))
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
        ["", "other.h"],  # pytest's namespaces compared alike too
    ]
    assert found == {version: expected for version in found}


def test_the_snapshot_names_what_was_replaced_deleted_or_planted(plugin):
    """Each check compares every entry by identity, in one pass; which entry changed is named."""

    class Shape:
        def area(self):
            return 1

    module = types.ModuleType("probe")
    module.Shape, module.helper = Shape, len
    frozen = plugin._frozen(
        [("probe", vars(module), {"Shape": Shape, "helper": len}), ("probe.Shape", Shape.__dict__, dict(vars(Shape)))]
    )
    assert plugin._replaced(frozen) == ""
    module.helper = max
    assert plugin._replaced(frozen) == "probe.helper"
    module.helper = len
    Shape.area = lambda self: 2
    assert plugin._replaced(frozen) == "probe.Shape.area"
    Shape.area = frozen[3][frozen[2].index("area")]
    assert plugin._replaced(frozen) == ""
    del module.helper
    assert plugin._replaced(frozen) == "probe.helper"
    module.helper = len

    armed = []

    class Liar(str):  # a key planted before the real one, in its place of the table, that raises when compared
        def __hash__(self):
            return hash("helper")

        def __eq__(self, other):
            if armed:
                raise RuntimeError("looked at")
            return False

    del module.helper
    vars(module)[Liar("x")] = max
    module.helper = len
    armed.append(True)
    assert plugin._replaced(frozen) == "probe.helper"


def test_pytest_raises_replaced_is_seen_and_the_snapshot_cannot_be_emptied(plugin):
    """On pytest itself, as a run loads it: pytest.raises replaced is named. The snapshot a run's checks read is a
    function's default, all tuples: nothing reachable through the plugin's module can empty or edit it (a list
    there could be cleared); reassigning a function's defaults is refused to the candidate (tests/harness/
    test_guard.py)."""
    frozen = plugin._frozen(plugin._namespaces())
    assert len(frozen[2]) > 1000 and all(type(part) is tuple for part in (*frozen, *frozen[4]))
    assert "raises" in frozen[2]
    real = pytest.raises
    try:
        pytest.raises = lambda *a, **k: None
        assert plugin._replaced(frozen) == "pytest.raises"
    finally:
        pytest.raises = real
    assert plugin._replaced(frozen) == ""
    assert type(plugin._held.__defaults__) is tuple and not plugin._held()[2]  # no test files: none


def facts_written(tmp_path, *sources):
    """The facts folder ``tmp_path / "facts"`` after the plugin ran as the harness runs it, on *sources*."""
    facts = tmp_path / "facts"
    facts.mkdir(exist_ok=True)
    script = str(plugin_dir() / "benchsmith_directcov.py")
    subprocess.run([sys.executable, "-I", script, str(facts), *map(str, sources)], check=True, capture_output=True)
    return facts


def test_a_test_file_s_facts_are_what_parsing_it_gives_and_only_for_its_bytes(plugin, tmp_path):
    """The harness reads each test file once per task (the plugin run as a script, as the class runner runs it) and
    a run reads what it wrote instead of parsing the file: the same test file as parsing gives, for those very bytes
    only. A file with one byte more (a sentinel carrier) finds no facts and is parsed; so is every file where the
    facts folder holds nothing of this plugin's."""
    import ast

    source = tmp_path / "test_shapes.py"
    source.write_text(TEST_FILE)
    facts = facts_written(tmp_path, source)
    assert [p.name for p in facts.iterdir()] == [plugin._facts_name(source.read_bytes())]

    def unparsed(data):
        raise AssertionError("parsed, not read from its facts")

    data = source.read_bytes()
    read = plugin._read_test_file(str(source), data, _facts=str(facts), _parse=unparsed)
    parsed = plugin._TestFile(str(source), ast.parse(data))
    assert type(read) is plugin._TestFile and vars(read) == vars(parsed)
    assert read.imported["os"] is sys.modules["os"]  # what its imports bound is resolved in this process, now

    longer = data + b"\ndef test_sentinel():\n    pass\n"
    with pytest.raises(AssertionError, match="parsed"):
        plugin._read_test_file(str(source), longer, _facts=str(facts), _parse=unparsed)
    assert "test_sentinel" in plugin._read_test_file(str(source), longer, _facts=str(facts)).lines
    with pytest.raises(AssertionError, match="parsed"):
        plugin._read_test_file(str(source), data, _facts=str(tmp_path), _parse=unparsed)


CARRIED = """import os
from unittest import mock
from os.path import join


def helper():
    return join("a", "b")


@mock.patch("os.getcwd", return_value="/")
class TestHost:
    attribute = 1

    def test_method(self, getcwd):
        assert helper()

    @mock.patch.object(os, "sep", "/")
    def test_patched(self, getcwd):
        pass


def test_function():
    assert os.sep"""

# what the harness appends (class_runner._write_sentinels): sentinels, inverted twins of functions and of methods
SENTINELS = """

def test_host_joined():
    assert len('joined') == 6


class TestHostMethod(TestHost):
    def test_method_twin(self, _directive=TestHost.test_method):
        try:
            _directive(self)
        except BaseException:
            return
        raise AssertionError('passed')


def test_function_twin(_directive=test_function):
    try:
        _directive()
    except BaseException:
        return
    raise AssertionError('passed')
"""


@pytest.mark.parametrize(
    ("head", "tail"),
    [
        (CARRIED + "\n", SENTINELS),  # a test file's text and the sentinels after it, as a run's carrier holds them
        (CARRIED, "\n" + SENTINELS),  # a text with no newline at its end: the harness puts one before the rest
        (CARRIED + "\n", SENTINELS + "\nos = None\n\ndef helper():\n    pass\n"),  # names the first part bound once
    ],
)
def test_a_carrier_reads_as_its_test_file_s_facts_and_the_rest_parsed(plugin, tmp_path, head, tail):
    """A sentinel carrier begins with a test file's text, whose facts the harness wrote: a run reads those and parses
    the rest only (BENCHSMITH_CARRIERS gives the length of that text), and gets what parsing the whole file gives,
    down to the imports and functions that count on a name bound once. Without the facts of that text, or at a
    length that does not end a line, the whole file is parsed."""
    import ast

    source = tmp_path / "test_host.py"
    source.write_text(head)
    facts = facts_written(tmp_path, source)
    data = (head + tail).encode()
    parsed = []

    def parse(text):
        parsed.append(len(text))
        return ast.parse(text)

    read = plugin._read_test_file(str(source), data, _facts=str(facts), _parse=parse, head=len(head))
    assert vars(read) == vars(plugin._TestFile(str(source), ast.parse(data)))
    assert parsed == [len(head.encode()) - len(head.replace("\n", "")) + len(tail)]  # the rest, after empty lines
    parsed.clear()
    plugin._read_test_file(str(source), data, _facts=str(facts), _parse=parse, head=len(head) - 3)
    plugin._read_test_file(str(source), data, _facts=str(tmp_path), _parse=parse, head=len(head))
    assert parsed == [len(data), len(data)]


def test_the_facts_script_writes_only_the_facts_that_are_not_there(plugin, tmp_path):
    """The harness hands the script every test file of the directives' folders at each task's start; only the plugin
    names facts (``_facts_name``), so the script skips a file whose facts it finds, and writes those of the others."""
    kept, new = tmp_path / "test_kept.py", tmp_path / "test_new.py"
    kept.write_text(TEST_FILE)
    new.write_text(TEST_FILE + "\ndef test_more():\n    pass\n")
    facts = tmp_path / "facts"
    facts.mkdir()
    there = facts / plugin._facts_name(kept.read_bytes())
    there.write_bytes(b"left as it was")
    facts_written(tmp_path, kept, new)
    assert there.read_bytes() == b"left as it was"
    assert sorted(p.name for p in facts.iterdir()) == sorted([there.name, plugin._facts_name(new.read_bytes())])


def test_a_real_path_is_kept_as_first_resolved_and_never_as_the_candidate_s_code_asked(tmp_path):
    """The checks before each test resolve the same few file names (its code's, its module's) every time: the audit
    hook keeps each one's real path as first resolved, where nothing outside it can plant an answer. A name the
    candidate's code asks about is answered but not kept: it could ask while it had moved a folder, and put it back."""
    candidate, first, second, link = tmp_path / "candidate.py", tmp_path / "a", tmp_path / "b", tmp_path / "link"
    candidate.write_text("def ask(resolve, path):\n    return resolve(path)\n")
    first.mkdir()
    second.mkdir()
    link.symlink_to(first)
    probe = f"""
import json, os, sys, types
sys.modules["pytest"] = types.SimpleNamespace(hookimpl=lambda **kw: (lambda f: f), Class=type)  # no pytest needed
os.environ["BENCHSMITH_CANDIDATE"] = {str(candidate)!r}
namespace = {{"__name__": "directcov"}}
exec(compile(open({str(plugin_dir() / "benchsmith_directcov.py")!r}).read(), "directcov.py", "exec"), namespace)
resolve = namespace["_resolved"]
sys.path.insert(0, {str(tmp_path)!r})
import candidate
kept, asked = {str(link / "kept.py")!r}, {str(link / "asked.py")!r}
before = [resolve(kept), candidate.ask(resolve, asked)]
os.remove({str(link)!r})
os.symlink({str(second)!r}, {str(link)!r})
print(json.dumps(before + [resolve(kept), resolve(asked), resolve("relative.py")]))
"""
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=second)
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout) == [
        str(first / "kept.py"),
        str(first / "asked.py"),
        str(first / "kept.py"),  # kept as first resolved
        str(second / "asked.py"),  # the candidate's question left nothing behind
        str(second / "relative.py"),  # a relative name is resolved where the process is, every time
    ]
