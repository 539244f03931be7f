"""The pieces the class harness's isolation rests on: the public view, the plugin's report through a pipe, sentinels."""

import ast
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from benchsmith.core.schema import ClassBenchTask, read_records
from benchsmith.runners.python.class_runner import (
    HOSTS,
    TWINS,
    TaskRunner,
    _SentinelHost,
    draw_carriers,
    reference_solution,
)
from benchsmith.runners.python.public_view import python_public_view
from benchsmith.runners.python.pytest_run import OWN_CONFIG, parse_report, plugin_dir
from benchsmith.runners.sandbox import jail as sandbox
from benchsmith.sources.checkout import PRIVATE_FOLDERS
from benchsmith.sources.python.environment import runtime
from benchsmith.sources.python.removal import SENTINEL, remove_class
from benchsmith.sources.python.repo import resolve


@pytest.fixture(scope="module")
def task(geometry_dataset) -> ClassBenchTask:
    (task,) = read_records(geometry_dataset, ClassBenchTask)
    return task


def test_public_view_is_the_tree_without_the_class_and_read_only(task):
    repo = resolve(task.repo)
    view = python_public_view(repo, task.file_path, task.class_name)
    assert python_public_view(repo, task.file_path, task.class_name) == view  # built once
    pristine = (repo.tree / task.file_path).read_text()
    assert (view / task.file_path).read_text() == remove_class(pristine, task.class_name).text
    assert (
        "class Polygon" not in (view / task.file_path).read_text() and SENTINEL in (view / task.file_path).read_text()
    )
    assert (view / OWN_CONFIG).read_text() == "[pytest]\n"  # the fixture has no pytest configuration of its own
    for path in [view, *view.rglob("*")]:
        assert "__pycache__" not in path.parts and path.suffix != ".pyc", path
        if os.geteuid() == 0:
            assert path.lstat().st_uid == 0, path
        assert not path.lstat().st_mode & 0o022, path  # nobody but its owner writes to it
    assert not [p for p in view.parent.iterdir() if p.name.startswith(".building-")]
    classbench = Path(os.environ["BENCHSMITH_CACHE"]) / "classbench"
    for name in PRIVATE_FOLDERS:
        if (classbench / name).exists():
            assert (classbench / name).stat().st_mode & 0o777 == 0o700, name
    assert (classbench / "envs").stat().st_mode & 0o005 == 0o005  # candidates run in the environment


def test_runtime_names_the_base_interpreter_and_hides_its_site_packages(task):
    python = resolve(task.repo).python
    found = runtime(python)
    # the environment's base interpreter: benchsmith's own, or one the sandbox's uid can run (/usr's)
    probe = "import sys; print(sys.base_prefix); print('%d.%d' % sys.version_info[:2])"
    base_text, minor = subprocess.run(
        [str(python), "-I", "-c", probe], capture_output=True, text=True, check=True
    ).stdout.split()
    base = Path(base_text)
    assert found.prefixes == (() if base.is_relative_to("/usr") else (base,))
    assert not any(Path.home() == p or p in Path.home().parents for p in found.prefixes)  # never a whole home folder
    site_packages = base / "lib" / f"python{minor}" / "site-packages"
    assert site_packages in found.hidden or not site_packages.is_dir()


def test_plugin_reports_every_outcome_through_the_pipe(tmp_path):
    (tmp_path / "test_kinds.py").write_text(
        textwrap.dedent("""
        import pytest

        @pytest.fixture
        def broken_setup():
            raise RuntimeError("setup")

        @pytest.fixture
        def broken_teardown():
            yield
            raise RuntimeError("teardown")

        def test_passes(): pass
        def test_fails(): assert False
        def test_skips(): pytest.skip("no")
        @pytest.mark.xfail
        def test_xfails(): assert False
        @pytest.mark.xfail
        def test_xpasses(): pass
        @pytest.mark.xfail(strict=True)
        def test_xpasses_strictly(): pass
        def test_setup_error(broken_setup): pass
        def test_teardown_error(broken_teardown): pass
        @pytest.mark.parametrize("x", [1])
        def test_not_selected(x): pass
    """)
    )
    (tmp_path / "test_broken.py").write_text("import nowhere_to_be_found\n")
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    selection = tmp_path / "select"
    names = ["passes", "fails", "skips", "xfails", "xpasses", "xpasses_strictly", "setup_error", "teardown_error"]
    selection.write_text("".join(f"test_kinds.py::test_{n}\n" for n in names))
    read_end, write_end = os.pipe()
    env = {
        **os.environ,
        "PYTHONPATH": str(plugin_dir()),
        "BENCHSMITH_SELECT": str(selection),
        "BENCHSMITH_REPORT_FD": str(write_end),
    }
    argv = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-p",
        "benchsmith_directcov",
        "-p",
        "no:cacheprovider",
        "--continue-on-collection-errors",
        "test_kinds.py",
        "test_broken.py",
    ]
    with subprocess.Popen(
        argv, cwd=tmp_path, env=env, pass_fds=(write_end,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    ):
        os.close(write_end)
        with os.fdopen(read_end, "rb") as pipe:
            data = pipe.read()
    report = parse_report(data)
    assert report.malformed == ""
    assert dict(report.tests) == {
        "test_kinds.py::test_passes": "passed",
        "test_kinds.py::test_fails": "failed",
        "test_kinds.py::test_skips": "skipped",
        "test_kinds.py::test_xfails": "xfailed",
        "test_kinds.py::test_xpasses": "xpassed",
        "test_kinds.py::test_xpasses_strictly": "failed",
        "test_kinds.py::test_setup_error": "error",
        "test_kinds.py::test_teardown_error": "error",
        "test_broken.py": "error",
    }
    assert len(report.tests) == len(dict(report.tests))


@pytest.mark.parametrize(
    "data, malformed",
    [
        (b"", ""),
        (b'{"nodeid": "t.py::a", "outcome": "passed"}\n{"nodeid": "t.py::b", "outcome": "failed"}\n', ""),
        (b'{"nodeid": "t.py::a", "outcome": "passed"}', "the last line is cut off"),
        (b"6 passed\n", "line 1 is not a test's report"),
        (b'{"nodeid": "t.py::a", "outcome": "passed"}\n\0', "the last line is cut off"),
        (b'{"nodeid": "t.py::a", "outcome": 1}\n', "line 1 is not a test's report"),
        (b'{"nodeid": "t.py::a"}\n', "line 1 is not a test's report"),
        # JSON nested deeper than the parser recurses (red team round 5: it made the candidate's verdict an error)
        (b"[" * 200_000 + b"\n", "line 1 is not a test's report"),
    ],
)
def test_a_report_is_believed_only_if_every_line_is_ours(data, malformed):
    assert parse_report(data).malformed.startswith(malformed)


def test_a_lone_surrogate_in_a_report_reaches_no_writer():
    """JSON may spell a lone UTF-16 surrogate (``\\ud800``, from a candidate's failure message): it is U+FFFD once read,
    so the message can go to a log, Parquet or an HTTP answer (red team round 5: serve's answer was a lasting 500)."""
    report = parse_report(b'{"nodeid": "t.py::a", "outcome": "failed", "message": "bad \\ud800 here"}\n')
    assert report.malformed == "" and report.messages == {"t.py::a": "bad \ufffd here"}
    report.messages["t.py::a"].encode("utf-8")


def test_sentinels_read_like_the_files_own_tests(task, tmp_path):
    with sandbox.leased_slot() as slot:
        runner = TaskRunner(task, slot, sandbox.Limits(wall_seconds=30), tmp_path / "logs")
        try:
            (host,) = runner.hosts
            carrier = tmp_path / "carrier.py"
            first = runner._write_sentinels(host, carrier, list(host.twins))
            second = runner._write_sentinels(host, tmp_path / "again.py", list(host.twins))
        finally:
            runner.close()
    assert host.path == "tests/test_shapes.py" and host.prefix == "test_"
    assert sorted(p.name for p in (tmp_path / "logs").glob("calibration*.log")) == [
        "calibration.log"
    ]  # one calibration run
    original = (runner.view / host.path).read_text()
    text = carrier.read_text()
    assert text.startswith(original)
    added = [n for n in ast.parse(text).body if isinstance(n, ast.FunctionDef) and f"def {n.name}(" not in original]
    assert sorted(f"{host.path}::{n.name}" for n in added) == sorted(s.name for s in first)
    assert all(n.name.startswith("test_") for n in added)
    fixed = [s for s in first if not s.inverts]
    twins = [s for s in first if s.inverts]
    assert sorted(s.passes for s in fixed) == [False, True]
    by_name = {n.name: n for n in added}
    assert all(len(by_name[s.name.split("::")[1]].body) == 1 for s in fixed)
    # Every directive of the file that can be called as it is has an inverted twin (the ground truth passes them all).
    assert sorted(s.inverts for s in twins) == sorted(f"{host.path}::{name}" for name in host.twins)
    assert sorted(host.twins) == sorted(d.split("::")[1] for d in task.test_directives)  # six, each callable as it is
    namespace: dict = {name: (lambda: None) for name in host.twins}  # the file's directives, defined above the twins
    exec(compile(ast.Module(body=added, type_ignores=[]), "sentinels", "exec"), namespace)
    for sentinel in fixed:
        function = namespace[sentinel.name.split("::")[1]]
        if sentinel.passes:
            function()
        else:
            with pytest.raises(AssertionError):
                function()
    for twin in twins:  # it passes when the directive it calls fails, and fails when it passes
        directive, name = twin.inverts.split("::")[1], twin.name.split("::")[1]
        definition = ast.Module(body=[by_name[name]], type_ignores=[])
        namespace[directive] = lambda: None
        exec(compile(definition, "sentinels", "exec"), namespace)
        namespace[directive] = lambda: 1 / 0  # rebound after the twin is defined: the twin still calls the original
        with pytest.raises(AssertionError):
            namespace[name]()
        exec(compile(definition, "sentinels", "exec"), namespace)  # defined while the directive fails
        namespace[name]()
    assert {s.name for s in first} != {s.name for s in second}  # new names for every candidate


def test_one_run_carries_sentinels_in_two_files_drawn_afresh():
    """A forger that spares the file carrying the sentinels must guess two of them in one run; the twins stay
    bounded, and which files and directives carry them changes from run to run."""
    import random

    hosts = [_SentinelHost(f"tests/test_{n}.py", "test_", (), tuple(f"test_{n}_{k}" for k in range(6))) for n in "abc"]
    rng = random.Random(7)
    draws = [draw_carriers(hosts, rng) for _ in range(40)]
    for carriers in draws:
        assert len(carriers) == HOSTS == 2
        assert sum(len(twins) for twins in carriers.values()) == TWINS
        assert all(set(twins) <= set(host.twins) for host, twins in carriers.items())
    assert len({frozenset(h.path for h in carriers) for carriers in draws}) == 3  # every pair of files comes up
    alone = draw_carriers(hosts[:1], rng)
    assert list(alone) == hosts[:1] and len(alone[hosts[0]]) == 6


def test_compiled_modules_are_shared_read_only_and_never_the_ground_truth(task, tmp_path):
    with sandbox.leased_slot() as slot:
        runner = TaskRunner(task, slot, sandbox.Limits(wall_seconds=30), tmp_path / "logs")
        runner.close()
    prefix = runner.pycache
    files = [p for p in prefix.rglob("*") if p.is_file()]
    assert any(p.name.endswith(f"-pytest-{_pytest_version(runner)}.pyc") for p in files)  # tests, rewritten by pytest
    for path in [prefix, *prefix.rglob("*")]:
        assert not path.is_symlink() and not path.lstat().st_mode & 0o022, path
        if os.geteuid() == 0:
            assert path.lstat().st_uid == 0, path
    assert not any(b"The shoelace formula" in p.read_bytes() for p in files)  # Polygon.area's docstring
    module = runner.tree / task.file_path
    pyc = prefix / str(module.parent).lstrip(os.sep) / f"{module.stem}.{sys.implementation.cache_tag}.pyc"
    assert int.from_bytes(pyc.read_bytes()[4:8], "little") & 0b11 == 0b11  # checked against its source's hash


def _pytest_version(runner: TaskRunner) -> str:
    return runner.repo.installed["pytest"]


def test_a_run_that_ends_before_pytest_writes_anything_is_run_again(task, tmp_path, monkeypatch, caplog):
    """A jail that does not come up, or a process killed from outside before pytest starts, says nothing of the
    candidate: the run is made again (the ground truth, once so lost, stays plausible). A candidate that ends its
    process whenever it is imported ends both runs the same way, and is wrong."""
    import benchsmith.runners.python.pytest_run as pytest_run

    real_start, lost = pytest_run.sandbox.start, []

    def start_losing_the_first(argv, *args, **kwargs):
        if not lost:  # the first run's process dies at once, killed from outside, before writing anything
            lost.append(argv)
            argv = [argv[0], "-c", "import os, signal; os.kill(os.getpid(), signal.SIGKILL)"]
        return real_start(argv, *args, **kwargs)

    monkeypatch.setattr(pytest_run.sandbox, "start", start_losing_the_first)
    with sandbox.leased_slot() as slot:
        runner = TaskRunner(task, slot, sandbox.Limits(wall_seconds=60), tmp_path / "logs")
        try:
            lost.clear()
            verdict = runner.evaluate(reference_solution(task), "gold")
            assert len(lost) == 1 and verdict.status == "plausible", verdict.reason
            assert (tmp_path / "logs" / "gold.first.log").stat().st_size == 0
            assert "before pytest wrote anything; running it again" in caplog.text
            killer = reference_solution(task) + "\n\nimport os as _os\n_os._exit(9)\n"
            verdict = runner.evaluate(killer, "exits")
            assert verdict.status == "wrong" and (tmp_path / "logs" / "exits.first.log").exists()
        finally:
            runner.close()
