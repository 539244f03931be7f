"""An interpreter the sandbox's uid cannot run (pyenv's under /root), copied where it can: a real installation."""

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from benchsmith.core.errors import BenchsmithError
from benchsmith.runners.sandbox.jail import leased_slot, sandbox_uid
from benchsmith.sources.python.environment import _interpreters
from benchsmith.sources.python.shared_interpreter import barred_folder, runnable_by_others, shareable


def _hidden_interpreter() -> Path:
    """The smallest installation here that others cannot run (prefer one without site-packages of weight)."""
    hidden = [(v, p) for p, v in _interpreters().items() if v.startswith("3.") and not runnable_by_others(p)]
    if not hidden:
        pytest.skip("every interpreter here can be run by others: nothing to copy")
    return min(hidden, key=lambda found: tuple(int(x) for x in found[0].split(".")[:2]))[1]


def test_an_interpreter_others_cannot_run_is_copied_where_they_can():
    python = _hidden_interpreter()
    version = subprocess.run(
        [str(python), "-c", "import platform; print(platform.python_version())"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    with leased_slot() as slot:
        _copied_and_run(python, version, str(sandbox_uid(slot, 0)))


def _copied_and_run(python: Path, version: str, uid: str) -> None:
    as_sandbox = ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--"]
    refused = subprocess.run([*as_sandbox, str(python), "-c", "pass"], capture_output=True, text=True)
    assert refused.returncode != 0  # exit 126/127: the folder above it cannot be entered

    copy = shareable(python)
    assert copy != python and runnable_by_others(copy)
    started = subprocess.run(
        [
            *as_sandbox,
            str(copy),
            "-I",
            "-c",
            "import platform, ssl, sqlite3, sys; print(platform.python_version(), sys.prefix)",
        ],
        capture_output=True,
        text=True,
    )
    assert started.returncode == 0, started.stderr
    found_version, prefix = started.stdout.split()
    assert found_version == version and Path(prefix) == copy.parent.parent  # its own standard library, not the old one
    assert shareable(python) == copy  # made once
    # an interpreter others can run is used as it is
    system = Path(sys.executable) if runnable_by_others(Path(sys.executable)) else Path("/usr/bin/python3")
    if runnable_by_others(system):
        assert shareable(system) == system


def test_an_environment_the_sandbox_cannot_reach_is_refused_up_front_naming_the_folder(monkeypatch):
    """A clone inside a folder only root may enter (mktemp -d's mode 0700) keeps its environments there: refused in
    one line naming the folder to open, before anything is resolved, instead of a suite run without pytest."""
    from benchsmith.sources.python import environment as python_env

    private = Path(tempfile.mkdtemp(prefix="benchsmith-private-"))  # mode 0700, as mktemp -d makes it
    try:
        (private / "clone").mkdir()
        monkeypatch.setenv("BENCHSMITH_CACHE", str(private / "clone" / "data" / "cache"))
        with pytest.raises(BenchsmithError) as caught:
            python_env.environment("pypi:x==1", private / "clone", None)
        message = str(caught.value)
        assert "\n" not in message and f"inside {private} (mode 700)" in message
        assert f"chmod o+x {private}" in message and "BENCHSMITH_CACHE" in message
        assert not any((private / "clone" / "data" / "cache" / "classbench" / "envs").iterdir())  # nothing was made
        private.chmod(0o711)
        assert barred_folder(private / "clone" / "data" / "cache") is None
    finally:
        shutil.rmtree(private)
