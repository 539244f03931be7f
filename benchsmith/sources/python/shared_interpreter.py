"""An interpreter the sandbox's uid can run, made from one it cannot.

The build's trusted test runs start the environment's interpreter as the sandbox's uid, without a mount namespace of
their own. An interpreter installed under a folder that uid cannot enter (pyenv's, under a /root of mode 0700) then
does not start at all (exit 127), and it is often the only one of its minor version here: the RepoClassBench paper
set litestar up on Python 3.8, which only pyenv has on this machine. Jailed candidate runs see it (the jail lays its
folders out), so a task judged fine and its published directives could not be checked on the repository's own code.

Such an installation is copied once into the cache, readable by all, and each of its programs and libraries that
found its shared libraries by the old folder's absolute path finds them relative to itself (patchelf, as
``make java8`` does for the Java 8 runtime). The copy starts as the original does: CPython finds its prefix next to
its program.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import stat
import subprocess
from pathlib import Path

from benchsmith.core.atomic import exclusive
from benchsmith.core.config import cache_dir
from benchsmith.core.errors import BenchsmithError

log = logging.getLogger(__name__)

COMPLETE = ".benchsmith-complete"
_ELF = b"\x7fELF"


def runnable_by_others(path: Path) -> bool:
    """Whether a user without privileges, the sandbox's uid, can run interpreter *path*: its real file executable by
    others, every folder above it searchable by them. pyenv's under a /root of mode 0700 is not: the build's test runs
    (as the sandbox's uid) then started the system's libpython and standard library instead of the environment's
    (Python 3.11.2 for an environment of 3.11.7), or nothing at all where the system has no such Python (exit 127),
    and could not run the environment's scripts or ``sys.executable`` (pytest-mypy-plugins' ``mypy``: Permission
    denied), while jailed candidate runs, which see the interpreter's folders, ran the right one."""
    try:
        real = path.resolve()
        return bool(real.stat().st_mode & 0o001) and all(folder.stat().st_mode & 0o001 for folder in real.parents)
    except OSError:
        return False


def barred_folder(path: Path) -> Path | None:
    """The outermost folder above *path* (itself included where it exists) that others may not enter, or None."""
    existing = [folder for folder in (path.resolve(), *path.resolve().parents) if folder.exists()]
    barred = [folder for folder in existing if folder.is_dir() and not folder.stat().st_mode & 0o001]
    return barred[-1] if barred else None


def check_reachable_by_sandbox(path: Path, what: str) -> None:
    """One line, naming the folder to change, where the sandbox's uid cannot reach *path*: a clone inside a folder
    only root may enter (``mktemp -d``, a home of mode 0700) has its environments there, and the trusted suite run
    then failed far later with "No module named pytest" in its log."""
    barred = barred_folder(path)
    if barred is not None:
        raise BenchsmithError(
            f"{path}: {what} is inside {barred} (mode {barred.stat().st_mode & 0o777:o}), which the "
            f"sandbox's uid cannot enter; run `chmod o+x {barred}` or set BENCHSMITH_CACHE to a "
            "folder every user can reach"
        )


def shareable(python: Path) -> Path:
    """*python*, or where it cannot be run by others, the same interpreter in a copy of its installation that can."""
    if runnable_by_others(python):
        return python
    if shutil.which("patchelf") is None:
        raise BenchsmithError(
            f"{python}: the sandbox's uid cannot run it, and copying it where it can needs patchelf "
            "(apt-get install patchelf)"
        )
    asked = "import json, os, sys; print(json.dumps([sys.base_prefix, sys.version, os.path.realpath(sys.executable)]))"
    probe = subprocess.run([str(python), "-I", "-c", asked], capture_output=True, text=True)
    if probe.returncode != 0:
        raise BenchsmithError(f"{python}: the interpreter does not start: {probe.stderr.strip()[-300:]}")
    prefix, version, real = json.loads(probe.stdout)  # real: a launcher (pyenv's shim) is not the interpreter
    prefix = Path(prefix)
    if prefix == Path("/") or prefix.is_relative_to("/usr"):  # a system interpreter: nothing of it can be copied well
        return python
    copy = cache_dir("interpreters") / f"{prefix.name}-{hashlib.sha256(str(prefix).encode()).hexdigest()[:12]}"
    with exclusive(copy):
        if not (copy / COMPLETE).exists():
            log.info(
                "copying %s (Python %s) to %s, where the sandbox's uid can run it", prefix, version.split()[0], copy
            )
            shutil.rmtree(copy, ignore_errors=True)
            # Not its site-packages: an environment never reads them (and the jail hides them), and they can weigh
            # more than the interpreter (pyenv's 3.11 here: 964 MB with them, 200 without).
            shutil.copytree(prefix, copy, symlinks=True, ignore=_site_packages_content)
            _relocate(copy, prefix)
            _open_to_all(copy)
            (copy / COMPLETE).write_text(str(prefix))
    if not Path(real).is_relative_to(prefix):
        raise BenchsmithError(f"{python}: runs {real}, which is not in its installation {prefix}: cannot copy it")
    moved = copy / Path(real).relative_to(prefix)
    if not runnable_by_others(moved):
        raise BenchsmithError(
            f"{moved}: copied from {python}, and still not runnable by others: put BENCHSMITH_CACHE "
            "somewhere every user can reach, or run `chmod o+x` on its folders"
        )
    return moved


def _site_packages_content(folder: str, names: list[str]) -> list[str]:
    return names if Path(folder).name == "site-packages" and Path(folder).parent.name.startswith("python") else []


def _relocate(copy: Path, prefix: Path) -> None:
    """Each ELF file of *copy* whose run path names *prefix* names the same folders relative to itself."""
    for path in copy.rglob("*"):
        if path.is_symlink() or not path.is_file():
            continue
        with path.open("rb") as handle:
            if handle.read(4) != _ELF:
                continue
        found = subprocess.run(["patchelf", "--print-rpath", str(path)], capture_output=True, text=True)
        if found.returncode != 0 or str(prefix) not in found.stdout:
            continue
        entries = []
        for entry in found.stdout.strip().split(":"):
            if entry == str(prefix) or entry.startswith(f"{prefix}/"):
                moved = copy / entry.removeprefix(str(prefix)).lstrip("/")
                entry = "$ORIGIN/" + os.path.relpath(moved, path.parent)
            entries.append(entry)
        done = subprocess.run(["patchelf", "--set-rpath", ":".join(entries), str(path)], capture_output=True, text=True)
        if done.returncode != 0:
            raise BenchsmithError(f"{path}: patchelf cannot point it at its copied libraries: {done.stderr.strip()}")


def _open_to_all(copy: Path) -> None:
    for folder, folders, files in os.walk(copy):
        os.chmod(folder, os.stat(folder).st_mode | 0o755)
        for name in files:
            path = Path(folder) / name
            if not path.is_symlink():
                mode = path.stat().st_mode
                path.chmod(mode | 0o444 | (0o111 if mode & stat.S_IXUSR else 0))
