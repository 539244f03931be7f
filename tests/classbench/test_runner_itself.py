"""Suites that need the runner's own plugins, and a repository that is pytest itself (RepoClassBench publishes 15
tasks of pytest): the plugins its addopts load stay, third-party plugins stay out of its sessions, and a candidate
in the runner's own modules is not refused the runner's work."""

import sys
from pathlib import Path

import pytest

from benchsmith.builders.classbench.python.suite import SuitePolicy, run_tests
from benchsmith.runners.python.pytest_run import (
    addopts,
    addopts_plugins,
    is_runner_module,
    pytest_argv,
    pytest_environ,
    runs_its_own_pytest,
    trusted_command,
    work_copy,
)
from benchsmith.runners.sandbox import jail as sandbox
from benchsmith.sources.python.repo import Repository
from tests.helpers.sandbox_tree import reachable_scratch, write_tree


@pytest.fixture
def tmp_path():
    """A scratch folder the sandbox user can reach (pytest's own are private to root)."""
    yield from reachable_scratch("runner-")


def repository(tree: Path, import_root: str = "", python: Path = Path(sys.executable)) -> Repository:
    return Repository(
        spec=str(tree),
        commit="",
        key="runner-fixture",
        tree=tree,
        import_root=import_root,
        python=python,
        installed={"pytest-timeout": "2.1.0"},
        package="",
    )


def test_addopts_are_read_from_the_file_pytest_reads(tmp_path):
    listed = write_tree(
        tmp_path / "listed",
        {
            "pyproject.toml": '[tool.pytest.ini_options]\naddopts = ["-p", "pytester"]\n',
            "setup.cfg": "[tool:pytest]\naddopts = -p ignored\n",
        },
    )
    quoted = write_tree(tmp_path / "quoted", {"setup.cfg": "[tool:pytest]\naddopts = -rfEX -p pytester -k 'a or b'\n"})
    ini_first = write_tree(
        tmp_path / "ini",
        {"pytest.ini": "[pytest]\naddopts = --strict-markers\n", "tox.ini": "[pytest]\naddopts = -p pytester\n"},
    )
    assert addopts(listed) == ["-p", "pytester"]
    assert addopts(quoted) == ["-rfEX", "-p", "pytester", "-k", "a or b"]
    assert addopts(ini_first) == ["--strict-markers"]
    assert addopts(write_tree(tmp_path / "none", {"README": "no configuration"})) == []


def test_only_plugins_the_run_can_import_are_kept(tmp_path):
    tree = write_tree(
        tmp_path / "tree",
        {
            "tox.ini": "[pytest]\naddopts = -p pytester -p no:randomly -pteaplugin -p tests.helpers -p xdist_is_absent "
            "--cov=kettle -n auto\n",
            "teaplugin.py": "",
            "tests/__init__.py": "",
            "tests/helpers.py": "",
        },
    )
    # pytester is pytest's own (this interpreter's pytest: its site-packages hold _pytest/pytester.py)
    python = Path(sys.prefix) / "bin" / "python"
    assert addopts_plugins(repository(tree, python=python)) == ["pytester", "no:randomly", "teaplugin", "tests.helpers"]
    argv = pytest_argv(repository(tree, python=python), tree, None)
    assert argv[argv.index("addopts=") + 1 :].count("-p") == 5  # four of the tree's, then ours
    assert "--cov=kettle" not in argv and "auto" not in argv


def test_a_suite_needing_the_pytester_plugin_runs(tmp_path):
    # The plugin is loaded by addopts alone, and filterwarnings = error turns its ini option, unknown without it,
    # into an error of the whole session (as in pytest's own suite).
    tree = write_tree(
        tmp_path / "repo",
        {
            "pytest.ini": "[pytest]\naddopts = -p pytester --strict-markers\npytester_example_dir = examples\n"
            "filterwarnings = error\n",
            "tests/test_inner.py": """
            def test_a_session_inside(pytester):
                pytester.makepyfile("def test_x(): pass")
                pytester.runpytest_inprocess().assert_outcomes(passed=1)

            def test_plain():
                pass
        """,
        },
    )
    repo = repository(tree, python=Path(sys.prefix) / "bin" / "python")
    with sandbox.leased_slot() as slot:
        copy = work_copy(tree, tmp_path / "copy", slot)
        result = run_tests(
            repo,
            copy,
            slot,
            tmp_path / "logs" / "run.log",
            None,
            SuitePolicy(unit_seconds=120, stall_seconds=120, budget_seconds=300),
        )
    assert result.outcomes == {
        "tests/test_inner.py::test_a_session_inside": "passed",
        "tests/test_inner.py::test_plain": "passed",
    }


def test_pytest_itself_runs_without_autoloaded_plugins(tmp_path):
    pytest_tree = write_tree(
        tmp_path / "pytest",
        {
            "src/pytest/__init__.py": "",
            "src/_pytest/capture.py": "",
            "src/_pytest/_code/code.py": "",
            "testing/test_x.py": "",
        },
    )
    old_layout = write_tree(tmp_path / "old", {"pytest.py": "", "_pytest/capture.py": ""})
    pluggy_tree = write_tree(tmp_path / "pluggy", {"src/pluggy/__init__.py": "", "src/pluggy/_hooks.py": ""})
    other = write_tree(
        tmp_path / "other", {"src/kettle/__init__.py": "", "src/kettle/py.py": "", "tests/test_k.py": ""}
    )
    itself, old, pluggy, kettle = (
        repository(pytest_tree, "src"),
        repository(old_layout),
        repository(pluggy_tree, "src"),
        repository(other, "src"),
    )
    assert runs_its_own_pytest(itself) and runs_its_own_pytest(old) and not runs_its_own_pytest(kettle)
    assert pytest_environ(itself)["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] == "1"
    assert "PYTEST_DISABLE_PLUGIN_AUTOLOAD" not in pytest_environ(kettle)
    _, env = trusted_command(itself, pytest_tree, None)
    assert env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] == "1"
    # pytest-timeout is one of those plugins: its option would not exist
    assert not any(a.startswith("--timeout") for a in pytest_argv(itself, pytest_tree, None))
    assert any(a.startswith("--timeout") for a in pytest_argv(kettle, other, None))
    assert is_runner_module(itself, "src/_pytest/_code/code.py") and is_runner_module(itself, "src/pytest/__init__.py")
    assert is_runner_module(old, "_pytest/capture.py") and is_runner_module(pluggy, "src/pluggy/_hooks.py")
    assert not is_runner_module(itself, "testing/test_x.py") and not is_runner_module(kettle, "src/kettle/py.py")
