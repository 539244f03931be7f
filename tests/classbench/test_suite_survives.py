"""The build's suite run survives its suite: a runner that dies (an internal error, a segfault, os._exit, a hang,
a module that kills pytest while it collects) loses no test. Real pytest runs, sandboxed, on tiny suites made here."""

import dataclasses
import json
import shutil
import sys
import textwrap
from pathlib import Path

import pytest

from benchsmith.builders.classbench.python.suite import CRASHED, TIMED_OUT, SuitePolicy, run_suite, run_tests
from benchsmith.core.errors import BenchsmithError
from benchsmith.core.schema import ClassBenchTask, read_records
from benchsmith.runners.python.pytest_run import work_copy
from benchsmith.runners.sandbox import jail as sandbox
from benchsmith.sources.python.repo import Repository
from tests.conftest import GEOMETRY, run_benchsmith
from tests.helpers.sandbox_tree import reachable_scratch, write_tree

FAST = SuitePolicy(unit_seconds=120, stall_seconds=120, budget_seconds=600)


@pytest.fixture
def tmp_path():
    """A scratch folder the sandbox user can reach (pytest's own are private to root)."""
    yield from reachable_scratch("suite-")


def make_suite(root: Path, files: dict[str, str]) -> Path:
    return write_tree(root, {**files, "pytest.ini": "[pytest]\n"})


def in_a_copy(tree: Path, tmp_path: Path, action):
    """*action*(repo, copy, slot) on a sandbox-owned copy of *tree*, run with this interpreter's pytest."""
    repo = Repository(
        spec=str(tree),
        commit="",
        key="suite-fixture",
        tree=tree,
        import_root="",
        python=Path(sys.executable),
        installed={},
        package="",
    )
    with sandbox.leased_slot() as slot:
        return action(repo, work_copy(tree, tmp_path / "copy", slot), slot)


def run(tree: Path, tmp_path: Path, policy: SuitePolicy = FAST):
    logs = tmp_path / "logs"
    return in_a_copy(tree, tmp_path, lambda repo, copy, slot: run_suite(repo, copy, slot, logs, policy)), logs


def passing(prefix: str, count: int) -> str:
    return "".join(f"def test_{prefix}_{n}(): pass\n" for n in range(count))


def dies_at_report(count: int) -> str:
    """A conftest whose *count*-th test report raises MemoryError inside pytest's own hooks: an INTERNALERROR."""
    return f"""
        reports = []
        def pytest_runtest_logreport(report):
            if report.when == "teardown":
                reports.append(report.nodeid)
                if len(reports) == {count}:
                    raise MemoryError("the address space ran out")
    """


def test_a_suite_that_dies_half_way_of_a_leak_loses_nothing(tmp_path):
    # The session's fourth test report raises MemoryError inside pytest's own hooks: an INTERNALERROR that ends the
    # run, as an exhausted address space did on litestar. It is the process's history, not one test, that kills it.
    tree = make_suite(
        tmp_path / "repo",
        {
            "tests/conftest.py": dies_at_report(4),
            "tests/test_one.py": passing("one", 6),
            "tests/test_two.py": passing("two", 5) + "def test_two_fails(): assert False\n",
        },
    )
    result, logs = run(tree, tmp_path)
    assert len(result.collected) == 12
    expected = {f"tests/test_one.py::test_one_{n}": "passed" for n in range(6)}
    expected |= {f"tests/test_two.py::test_two_{n}": "passed" for n in range(5)}
    expected["tests/test_two.py::test_two_fails"] = "failed"
    assert result.outcomes == expected  # every test after the crash point found, with its own outcome
    assert result.counts() == {"collected": 12, "passed": 11, "failed": 1}
    first = result.crashed_units[0]
    assert first.unit == "the whole suite" and first.tests == 9
    assert first.reason == "pytest INTERNALERROR: MemoryError: the address space ran out"
    assert (logs / first.log).is_file()


def test_a_segfault_and_an_exit_each_take_only_their_own_test(tmp_path):
    tree = make_suite(
        tmp_path / "repo",
        {
            "tests/test_native.py": """
            import ctypes
            def test_before(): pass
            def test_segfaults(): ctypes.string_at(0)
            def test_after(): pass
            def test_fails_after(): assert False
        """,
            "tests/test_exits.py": """
            import os
            def test_exits(): os._exit(7)
            def test_after_exit(): pass
        """,
            "tests/test_plain.py": passing("plain", 2),
        },
    )
    result, _ = run(tree, tmp_path)
    assert result.outcomes == {
        "tests/test_exits.py::test_exits": CRASHED,
        "tests/test_exits.py::test_after_exit": "passed",
        "tests/test_native.py::test_before": "passed",
        "tests/test_native.py::test_segfaults": CRASHED,
        "tests/test_native.py::test_after": "passed",
        "tests/test_native.py::test_fails_after": "failed",
        "tests/test_plain.py::test_plain_0": "passed",
        "tests/test_plain.py::test_plain_1": "passed",
    }
    assert set(result.collected) == set(result.outcomes)
    reasons = {u.unit: u.reason for u in result.crashed_units}
    assert reasons["tests/test_native.py::test_segfaults"].startswith(
        "killed by SIGSEGV (Fatal Python error: Segmentation"
    )
    assert reasons["tests/test_exits.py::test_exits"] == "the test process exited with status 7"
    assert reasons["the whole suite"] == "the test process exited with status 7"  # test_exits.py runs first


def test_a_hung_test_times_out_alone(tmp_path):
    tree = make_suite(
        tmp_path / "repo",
        {
            "tests/test_slow.py": "import time\ndef test_before(): pass\ndef test_hangs(): time.sleep(3600)\ndef "
            "test_after(): pass\n",
            "tests/test_zother.py": passing("other", 2),
        },
    )
    result, _ = run(tree, tmp_path, SuitePolicy(unit_seconds=120, stall_seconds=8, budget_seconds=600))
    assert result.outcomes == {
        "tests/test_slow.py::test_before": "passed",
        "tests/test_slow.py::test_hangs": TIMED_OUT,
        "tests/test_slow.py::test_after": "passed",
        "tests/test_zother.py::test_other_0": "passed",
        "tests/test_zother.py::test_other_1": "passed",
    }
    units = {u.unit: (u.tests, u.reason) for u in result.crashed_units}
    assert units["the whole suite"] == (4, "hung: no test reported for 8 s")
    assert units["tests/test_slow.py::test_hangs"][1] in ("hung: no test reported for 8 s", "timed out after 8 s")


def test_a_run_whose_threads_outlive_its_session_is_stopped_with_every_outcome(tmp_path, monkeypatch):
    """Every test reported, then the interpreter cannot exit: a thread the suite left running (pykka's actors) is
    joined at exit forever. The run is stopped soon after pytest's session finished, as ended by itself; not after
    the whole stall, as a hang."""
    from benchsmith.runners.python import pytest_run

    monkeypatch.setattr(pytest_run, "FINISHED_GRACE_SECONDS", 1.0)
    tree = make_suite(
        tmp_path / "repo",
        {
            "tests/test_actor.py": (
                "import threading, time\n"
                "def test_starts_an_actor():\n    threading.Thread(target=time.sleep, args=(3600,)).start()\n"
                "def test_after(): pass\n"
            ),
        },
    )
    result, logs = run(tree, tmp_path, SuitePolicy(unit_seconds=600, stall_seconds=300, budget_seconds=900))
    assert result.outcomes == {
        "tests/test_actor.py::test_starts_an_actor": "passed",
        "tests/test_actor.py::test_after": "passed",
    }
    assert result.crashed_units == [] and result.runs == 1
    assert (
        "after pytest's session finished (threads the suite left running): stopped" in (logs / "suite.log").read_text()
    )


def test_a_module_that_kills_pytest_while_collecting_costs_only_itself(tmp_path):
    tree = make_suite(
        tmp_path / "repo",
        {
            "tests/test_bad_import.py": "import ctypes\nctypes.string_at(0)\n\ndef test_never(): pass\n",
            "tests/test_good.py": passing("good", 3),
        },
    )
    result, _ = run(tree, tmp_path)
    assert result.outcomes == {
        "tests/test_bad_import.py": CRASHED,
        **{f"tests/test_good.py::test_good_{n}": "passed" for n in range(3)},
    }
    assert result.collected == [f"tests/test_good.py::test_good_{n}" for n in range(3)]
    reasons = [(u.unit, u.tests, u.reason.split(" (")[0]) for u in result.crashed_units]
    assert reasons == [
        ("the whole suite", 0, "while collecting: killed by SIGSEGV"),
        ("tests/test_bad_import.py", 0, "while collecting: killed by SIGSEGV"),
    ]


def test_a_suite_that_mostly_cannot_run_fails_the_build_in_one_line(tmp_path):
    tree = make_suite(
        tmp_path / "repo",
        {
            "tests/test_native.py": "import ctypes\n"
            + "".join(f"def test_{n}(): ctypes.string_at(0)\n" for n in range(3)),
            "tests/test_ok.py": passing("ok", 1),
        },
    )
    with pytest.raises(BenchsmithError) as raised:
        run(tree, tmp_path)
    message = str(raised.value)
    assert (
        "\n" not in message
        and "only 1 of 4 collected tests ran (below 50%); 3 crashed or timed out, mostly: killed by SIGSEGV" in message
    )


def test_a_suite_where_nothing_can_be_collected_fails_the_build_in_one_line(tmp_path):
    tree = make_suite(tmp_path / "repo", {f"tests/test_{n}.py": "import os\nos._exit(127)\n" for n in ("a", "b")})
    with pytest.raises(BenchsmithError) as raised:
        run(tree, tmp_path)
    message = str(raised.value)
    assert (
        "\n" not in message
        and "no test could be collected: every run died while collecting, mostly while "
        "collecting: the test process exited with status 127"
        in message
    )


def test_the_card_lists_the_suite_and_every_unit_that_died(tmp_path):
    tree = tmp_path / "geometry"
    shutil.copytree(GEOMETRY, tree)
    (tree / "tests" / "test_zz_native.py").write_text(
        "import ctypes\n\ndef test_segfaults():\n    ctypes.string_at(0)\n\ndef test_after():\n    pass\n"
    )
    out = tmp_path / "geometry.parquet"
    completed = run_benchsmith("classbench", "build", "--repo", str(tree), "--out", str(out))
    assert completed.returncode == 0, completed.stderr[-3000:]
    card = json.loads(out.with_suffix(".card.json").read_text())
    assert card["tasks"] == 1  # the shortlist still sees every test of the geometry package's suite
    assert card["test_suite"] == {"passed": 9, CRASHED: 1}
    assert card["suite_run"]["collected"] == 10
    assert [(u["unit"], u["tests"]) for u in card["suite_run"]["crashed_units"]] == [
        ("the whole suite", 2),
        ("tests/test_zz_native.py::test_segfaults", 1),
    ]
    text = out.with_suffix(".card.md").read_text()
    assert "Test suite: 10 collected; passed 9, crashed 1 (3 runs of pytest)." in text
    assert "| tests/test_zz_native.py::test_segfaults | 1 | killed by SIGSEGV" in text


def test_tests_failing_on_a_worn_out_resource_get_a_fresh_process(tmp_path):
    # Every test after the fourth of a process fails to start a thread, as in a suite that keeps its threads alive.
    tree = make_suite(
        tmp_path / "repo",
        {
            "tests/conftest.py": """
            import pytest
            started = []
            @pytest.fixture(autouse=True)
            def one_more_thread():
                started.append(1)
                if len(started) > 4:
                    raise RuntimeError("can't start new thread")
        """,
            "tests/test_a.py": passing("a", 3),
            "tests/test_b.py": passing("b", 2) + "def test_b_fails(): assert False\n",
        },
    )
    result, _ = run(tree, tmp_path)
    assert result.counts() == {"collected": 6, "passed": 5, "failed": 1}
    assert result.retried == {
        "tests/test_b.py::test_b_1": {"first": "error", "exhausted": "can't start new thread", "then": "passed"},
        "tests/test_b.py::test_b_fails": {"first": "error", "exhausted": "can't start new thread", "then": "failed"},
    }
    assert result.crashed_units == []


# The build's other runs (the tests that reference a class, with it removed; the directives with the ground truth
# and with an empty class) select node ids and go through the same mechanism.


def run_selected(tree: Path, tmp_path: Path, nodes: list[str], policy: SuitePolicy = FAST):
    log_path = tmp_path / "logs" / "directives.log"
    return in_a_copy(tree, tmp_path, lambda repo, copy, slot: run_tests(repo, copy, slot, log_path, nodes, policy))


def test_a_selection_that_dies_half_way_loses_nothing(tmp_path):
    tree = make_suite(
        tmp_path / "repo",
        {
            "tests/conftest.py": dies_at_report(3),
            "tests/test_one.py": passing("one", 4) + "def test_one_fails(): assert False\n",
            "tests/test_two.py": passing("two", 3),
        },
    )
    selected = [f"tests/test_one.py::test_one_{n}" for n in (0, 1, 3)] + [
        "tests/test_one.py::test_one_fails",
        "tests/test_two.py::test_two_2",
    ]
    result = run_selected(tree, tmp_path, selected)
    assert result.outcomes == {**{node: "passed" for node in selected}, "tests/test_one.py::test_one_fails": "failed"}
    assert result.crashed_units[0].unit == "the 5 selected tests" and result.crashed_units[0].tests == 3
    assert (tmp_path / "logs" / "directives.log").is_file()
    assert all((tmp_path / "logs" / u.log).is_file() for u in result.crashed_units)
    assert (tmp_path / "logs" / "directives-units").is_dir()  # the reruns log beside the first run


def test_a_selection_survives_a_segfault_an_exit_and_a_hang(tmp_path):
    tree = make_suite(
        tmp_path / "repo",
        {
            "tests/test_native.py": """
            import ctypes, os, time
            def test_before(): pass
            def test_segfaults(): ctypes.string_at(0)
            def test_exits(): os._exit(7)
            def test_hangs(): time.sleep(3600)
            def test_after(): pass
            def test_not_selected(): pass
        """,
            "tests/test_plain.py": passing("plain", 2),
        },
    )
    selected = [f"tests/test_native.py::test_{name}" for name in ("before", "segfaults", "exits", "hangs", "after")]
    selected += ["tests/test_plain.py::test_plain_1"]
    result = run_selected(tree, tmp_path, selected, SuitePolicy(unit_seconds=120, stall_seconds=8, budget_seconds=600))
    assert result.outcomes == {
        "tests/test_native.py::test_before": "passed",
        "tests/test_native.py::test_segfaults": CRASHED,
        "tests/test_native.py::test_exits": CRASHED,
        "tests/test_native.py::test_hangs": TIMED_OUT,
        "tests/test_native.py::test_after": "passed",
        "tests/test_plain.py::test_plain_1": "passed",
    }
    reasons = {u.unit: u.reason for u in result.crashed_units}
    assert reasons["tests/test_native.py::test_segfaults"].startswith("killed by SIGSEGV")
    assert reasons["tests/test_native.py::test_exits"] == "the test process exited with status 7"
    assert reasons["tests/test_native.py::test_hangs"] in ("hung: no test reported for 8 s", "timed out after 8 s")


def test_a_selection_pytest_refuses_is_run_once(tmp_path):
    # Removing a class that a conftest imports stops pytest before it collects: the tests fail, nothing crashed, and
    # running each of them alone would say the same hundreds of times.
    tree = make_suite(
        tmp_path / "repo",
        {
            "tests/conftest.py": "from shapes import Polygon\n",
            "tests/test_one.py": passing("one", 3),
        },
    )
    result = run_selected(tree, tmp_path, [f"tests/test_one.py::test_one_{n}" for n in range(3)])
    assert (result.runs, result.outcomes, result.crashed_units) == (1, {}, [])


def test_an_id_a_selection_does_not_collect_is_no_crash(tmp_path):
    tree = make_suite(tmp_path / "repo", {"tests/test_one.py": passing("one", 2)})
    result = run_selected(tree, tmp_path, ["tests/test_one.py::test_one_1", "tests/test_one.py::test_one_0[0x7f3a]"])
    assert (result.runs, result.outcomes, result.crashed_units) == (1, {"tests/test_one.py::test_one_1": "passed"}, [])


def build_geometry_with(tmp_path: Path, files: dict[str, str]):
    """The geometry package with *files* written over it, built: the CLI's result, the card, the one task."""
    tree = tmp_path / "geometry"
    shutil.copytree(GEOMETRY, tree)
    for name, text in files.items():
        (tree / name).write_text(textwrap.dedent(text))
    out = tmp_path / "geometry.parquet"
    completed = run_benchsmith("classbench", "build", "--repo", str(tree), "--out", str(out))
    assert completed.returncode == 0, completed.stderr[-3000:]
    (task,) = read_records(out, ClassBenchTask)
    return completed, json.loads(out.with_suffix(".card.json").read_text()), task


def judge(tmp_path: Path, dataset: Path, task, codes: dict[str, str], *options: str, label: str = "results"):
    """Each of *codes* (candidate id -> the class's code) judged by ``benchsmith eval`` on *dataset*: each one's
    status, and what eval wrote to stderr."""
    from benchsmith.core.schema import Result

    candidates = tmp_path / f"{label}.jsonl"
    candidates.write_text(
        "".join(
            json.dumps({"instance_id": task.task_id, "candidate_id": c, "code": code}) + "\n"
            for c, code in codes.items()
        )
    )
    out = tmp_path / f"{label}.parquet"
    completed = run_benchsmith(
        "eval", "--dataset", str(dataset), "--candidates", str(candidates), "--out", str(out), *options
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    return {r.candidate_id: r.status for r in read_records(out, Result)}, completed.stderr


def test_a_directive_run_that_segfaults_makes_no_test_a_directive_it_is_not(tmp_path):
    # Without Polygon the first test kills pytest. The test after it passes without the class: it must not become a
    # directive because the run died before it reported (one run would have said nothing of it).
    completed, card, task = build_geometry_with(
        tmp_path,
        {
            # The package reaches its classes lazily: without Polygon, geometry.shapes still imports.
            "src/geometry/__init__.py": "from . import shapes\nfrom .units import Length\n\n\n"
            "def __getattr__(name):\n    return getattr(shapes, name)\n",
            "tests/test_aa_guard.py": """
            import ctypes
            import geometry.shapes as shapes

            def test_polygon_or_crash():
                if not hasattr(shapes, "Polygon"):
                    ctypes.string_at(0)
                assert shapes.Polygon([shapes.Point(0, 0), shapes.Point(1, 0), shapes.Point(0, 1)]).area() == 0.5

            def test_names_polygon_without_needing_it():
                assert hasattr(shapes, "Point") or shapes.Polygon
        """,
        },
    )
    assert card["solution_checks"]["geometry.shapes.Polygon"] == {
        "directives": 7,
        "unstable_ids_dropped": 0,
        "failing_on_the_original_dropped": 0,
        "flaky_dropped": 0,
        "refused_to_candidates_dropped": 0,
        "passing_with_ground_truth": 7,
        "passing_with_empty_class": 0,
    }
    assert "tests/test_aa_guard.py::test_polygon_or_crash" in task.test_directives
    assert "tests/test_aa_guard.py::test_names_polygon_without_needing_it" not in task.test_directives
    assert "killed by SIGSEGV" in completed.stderr  # the crash is told, with the unit and its log


def test_a_directive_that_fails_on_the_original_code_when_run_alone_is_dropped(tmp_path):
    # It passes in the suite, after a test that prepares what it leans on; run among the directives alone it fails
    # with the ground truth and with the original code alike: it says nothing of a candidate, and the class stays.
    completed, card, task = build_geometry_with(
        tmp_path,
        {
            "tests/test_zz_order.py": """
        import geometry.shapes as shapes

        prepared = []

        def test_a_prepares():
            prepared.append(True)

        def test_b_leans_on_it():
            assert prepared
            assert shapes.Polygon([shapes.Point(0, 0), shapes.Point(1, 0), shapes.Point(0, 1)]).area() == 0.5
    """
        },
    )
    assert card["solution_checks"]["geometry.shapes.Polygon"] == {
        "directives": 6,
        "unstable_ids_dropped": 0,
        "failing_on_the_original_dropped": 1,
        "flaky_dropped": 0,
        "refused_to_candidates_dropped": 0,
        "passing_with_ground_truth": 6,
        "passing_with_empty_class": 0,
    }
    assert "tests/test_zz_order.py::test_b_leans_on_it" not in task.test_directives


def test_a_directive_that_fails_once_with_the_ground_truth_and_then_passes_is_dropped_as_flaky(tmp_path):
    # It fails once, on its first run after the run without the class (the ground truth's check); the original code
    # and the check run again pass it: it depends on when it runs, as pykka's log-capturing test did on an earlier
    # test's actor thread, and could fail a right candidate. The class stays.
    completed, card, task = build_geometry_with(
        tmp_path,
        {
            # The package reaches its classes lazily: without Polygon, geometry.shapes still imports.
            "src/geometry/__init__.py": "from . import shapes\nfrom .units import Length\n\n\n"
            "def __getattr__(name):\n    return getattr(shapes, name)\n",
            "tests/test_zz_timing.py": """
        from pathlib import Path

        import geometry.shapes as shapes

        REMOVED, FAILED = Path(__file__).with_name("removed-seen"), Path(__file__).with_name("failed-once")

        def test_depends_on_timing():
            if not hasattr(shapes, "Polygon"):
                REMOVED.touch()
            elif REMOVED.exists() and not FAILED.exists():
                FAILED.touch()
                raise AssertionError("a record another test's thread logged late")
            assert shapes.Polygon([shapes.Point(0, 0), shapes.Point(1, 0), shapes.Point(0, 1)]).area() == 0.5
    """,
        },
    )
    checks = card["solution_checks"]["geometry.shapes.Polygon"]
    assert (checks["flaky_dropped"], checks["failing_on_the_original_dropped"], checks["directives"]) == (1, 0, 6)
    assert "tests/test_zz_timing.py::test_depends_on_timing" not in task.test_directives


def test_a_directive_whose_ground_truth_needs_what_candidates_are_refused_is_dropped(tmp_path):
    # The ground truth reads its caller's frame, as boltons' tbutils classes read frames: under the candidate guard,
    # which eval puts on every candidate's module, the directive that calls it fails with the ground truth too. The
    # build checks the ground truth as eval judges it, so the directive is dropped and the task's gold passes in eval.
    shapes = (
        (GEOMETRY / "src/geometry/shapes.py")
        .read_text()
        .replace(
            "    @property\n    def label",
            "    def made_in(self) -> str:\n        import sys\n\n        return sys._getframe(1).f_code.co_name\n\n"
            "    @property\n    def label",
        )
    )
    _, card, task = build_geometry_with(
        tmp_path,
        {
            "src/geometry/shapes.py": shapes,
            "tests/test_zz_frames.py": """
        from geometry import Point, Polygon

        def test_made_in():
            assert Polygon([Point(0, 0), Point(1, 0), Point(0, 1)]).made_in() == "test_made_in"
    """,
        },
    )
    checks = card["solution_checks"]["geometry.shapes.Polygon"]
    assert (checks["refused_to_candidates_dropped"], checks["directives"]) == (1, 6)
    assert "tests/test_zz_frames.py::test_made_in" not in task.test_directives
    from benchsmith.runners.python.class_runner import reference_solution

    gold = {"gold": reference_solution(task)}
    assert judge(tmp_path, tmp_path / "geometry.parquet", task, gold)[0] == {"gold": "plausible"}
    # A published task keeps such a directive (no build checked it): eval says why its ground truth fails it
    from benchsmith.core.export import write_dataset

    published = tmp_path / "published.parquet"
    kept = dataclasses.replace(task, test_directives=[*task.test_directives, "tests/test_zz_frames.py::test_made_in"])
    write_dataset([kept], type(task), published, {}, "")
    statuses, stderr = judge(tmp_path, published, kept, gold, label="published-results")
    assert statuses == {"gold": "wrong"}
    assert "the candidate guard refused the ground truth sys._getframe" in stderr


def test_a_task_whose_directives_outlast_the_timeout_gives_candidates_the_ground_truths_time(tmp_path):
    # A directive that takes 3 s, judged with --timeout 2: the ground truth's calibration run (trusted, a suite's time
    # allowed) measures what the directives take, and each candidate's run gets twice that, so the ground truth is not
    # a timeout; a candidate that never ends still is (litestar's TestClient: 859 directives, 100 s with its class).
    _, _, task = build_geometry_with(
        tmp_path,
        {
            "tests/test_zz_slow.py": """
        import time

        import geometry.shapes as shapes

        def test_slowly():
            time.sleep(3)
            assert shapes.Polygon([shapes.Point(0, 0), shapes.Point(1, 0), shapes.Point(0, 1)]).area() == 0.5
    """
        },
    )
    assert "tests/test_zz_slow.py::test_slowly" in task.test_directives
    from benchsmith.runners.python.class_runner import reference_solution

    hangs = "while True:\n    pass\n\n" + reference_solution(task)
    statuses, stderr = judge(
        tmp_path,
        tmp_path / "geometry.parquet",
        task,
        {"gold": reference_solution(task), "hangs": hangs},
        "--timeout",
        "2",
    )
    assert statuses == {"gold": "plausible", "hangs": "timeout"}
    assert "each candidate's run may take" in stderr


def test_a_task_without_twins_is_calibrated_too(tmp_path):
    # Every directive takes a fixture, so none can have an inverted twin (pydicom's Sequence: none of its directives
    # could). Its ground truth's run is made all the same, for the time: one directive takes 3 s against --timeout 2.
    _, _, task = build_geometry_with(
        tmp_path,
        {
            "tests/test_shapes.py": """
        import time

        import pytest

        from geometry import Point, Polygon


        @pytest.fixture
        def square():
            return Polygon([Point(0, 0), Point(1, 0), Point(1, 1), Point(0, 1)])


        def test_perimeter(square):
            assert square.perimeter() == 4.0


        def test_area(square):
            assert square.area() == 1.0


        def test_degenerate(square):
            assert Polygon([Point(0, 0), Point(1, 1), Point(2, 2)]).is_degenerate()
            assert not square.is_degenerate()


        def test_label_slowly(square):
            time.sleep(3)
            assert square.label == "polygon (4 points)"
    """
        },
    )
    assert "tests/test_shapes.py::test_label_slowly" in task.test_directives
    from benchsmith.runners.python.class_runner import reference_solution

    empty = f"class {task.class_name}:\n    pass\n"
    statuses, stderr = judge(
        tmp_path,
        tmp_path / "geometry.parquet",
        task,
        {"gold": reference_solution(task), "empty": empty},
        "--timeout",
        "2",
    )
    assert statuses == {"gold": "plausible", "empty": "wrong"}
    assert "each candidate's run may take" in stderr


def test_a_task_whose_ground_truth_runs_out_of_threads_gets_smaller_thread_stacks(tmp_path):
    # A directive that leaves 700 threads alive, as litestar's test clients leave theirs (TestClient: 939): at glibc's
    # 8 MiB of stack each they outgrow a candidate's 4 GiB of address space, so even the ground truth failed ("can't
    # start new thread"). Its calibration run says so, and the task's runs get 2 MiB thread stacks.
    _, _, task = build_geometry_with(
        tmp_path,
        {
            "tests/test_zz_threads.py": """
        import threading

        import geometry.shapes as shapes

        HELD = threading.Event()

        def test_leaves_threads_running():
            for _ in range(700):
                threading.Thread(target=HELD.wait, daemon=True).start()
            assert shapes.Polygon([shapes.Point(0, 0), shapes.Point(1, 0), shapes.Point(0, 1)]).area() == 0.5
    """
        },
    )
    assert "tests/test_zz_threads.py::test_leaves_threads_running" in task.test_directives
    from benchsmith.runners.python.class_runner import reference_solution

    empty = f"class {task.class_name}:\n    pass\n"
    statuses, stderr = judge(
        tmp_path, tmp_path / "geometry.parquet", task, {"gold": reference_solution(task), "empty": empty}
    )
    assert statuses == {"gold": "plausible", "empty": "wrong"}
    assert "its runs get 2 MiB thread stacks" in stderr
