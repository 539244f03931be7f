"""A source tree's Python environment: its dependencies and test requirements, resolved and installed with uv.

The environment holds the package's dependencies and its test requirements,
not the package itself: tests import the package from the copy they run in
(``PYTHONPATH``), so removing a class from that copy really removes it. It is
resolved as of a date (the index's uploads before it, and a Python released
by then) or against today's index, and locked; a recorded lock is installed
as it is. Environments stay readable: candidates run in them.
"""

from __future__ import annotations

import email.parser
import functools
import hashlib
import json
import logging
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name

from benchsmith.core.atomic import exclusive, write_text_atomic
from benchsmith.core.config import cache_dir
from benchsmith.core.errors import BenchsmithError
from benchsmith.core.schema import TaskEnvironment
from benchsmith.sources.checkout import SCM_VERSION, index_url
from benchsmith.sources.python import deps as python_deps
from benchsmith.sources.python.build_failures import check_own_import, sync_what_builds
from benchsmith.sources.python.shared_interpreter import check_reachable_by_sandbox, runnable_by_others, shareable

log = logging.getLogger(__name__)


# 11: the conda environment file's packages are declarations (python_conda); 10: an interpreter the sandbox's uid cannot
# run is copied where it can (python_shared); 7: setuptools in a Python before 3.12; 6: extras the code imports are
# declarations; a Python released by the date
# (5: uv lock as of the date)
ENV_FORMAT = 11
# Before Python 3.12 every virtual environment was made with setuptools (venv and virtualenv seeded it), and suites
# of their day import it unannounced (pvlib's conftest imports pkg_resources); uv's environments have none.
SEEDED_SETUPTOOLS_BEFORE = (3, 12)


def build_environ(tree: Path) -> dict[str, str]:
    """The environment of a build of *tree*: setuptools-scm told the version git would have given it."""
    path = tree / SCM_VERSION
    version = path.read_text().strip() if path.is_file() else ""
    return {**os.environ, "SETUPTOOLS_SCM_PRETEND_VERSION": version} if version else dict(os.environ)


def environment(
    key: str,
    tree: Path,
    as_of: str | None,
    locked: TaskEnvironment | None = None,
    python: str = "",
    system_deps: bool = False,
) -> tuple[Path, dict, dict]:
    """The environment of *tree*: its requirements and test requirements resolved by uv (as of *as_of*, or today's
    index when None) into a lock file in the environment's folder, and that lock installed as far as it builds
    (:func:`benchsmith.sources.python.build_failures.sync_what_builds`); or, with *locked*, the recorded lock
    installed as it is. *python* asks for that Python version (where one is here); *system_deps* installs the
    Debian package that provides a header or library a distribution's build lacks, instead of leaving it out."""
    dated = "latest" if as_of is None else "asof-" + re.sub(r"[^0-9TZ]", "", as_of)
    # The format is in the name: two benchsmith versions sharing a cache each keep theirs, instead of rebuilding the
    # other's in place, under its running judgements
    env = cache_dir("classbench", "envs") / f"{key}-{dated}-e{ENV_FORMAT}"
    env = env.with_name(env.name + f"-py{python}") if python and locked is None else env
    check_reachable_by_sandbox(env, "the environment's folder")
    with exclusive(env):  # two workers judging tasks of one repository would otherwise build it at once
        return _built_environment(key, tree, as_of, locked, env, python, system_deps)


def _built_environment(
    key: str,
    tree: Path,
    as_of: str | None,
    locked: TaskEnvironment | None,
    env: Path,
    python: str = "",
    system_deps: bool = False,
) -> tuple[Path, dict, dict]:
    manifest = env / "benchsmith-env.json"
    if manifest.exists():
        record = json.loads(manifest.read_text())
        same_lock = locked is None or record.get("resolution", {}).get("lock_sha256") == locked.lock_sha256
        # one that left out what a Debian package would have let build is built again when asked to install those
        helpable = system_deps and any(
            e.get("debian_package") for e in record.get("resolution", {}).get("not_built", [])
        )
        if record.get("format") == ENV_FORMAT and same_lock and not helpable:
            return env / "bin" / "python", record["installed"], record["resolution"]
        if not same_lock:
            log.info("%s holds another lock than the dataset's: installing the dataset's", env)
    choices = _interpreter_choices(tree, key, python, as_of)
    # A recorded Python or lock is kept; a resolution falls back to an older Python when an sdist refuses this one
    choices = choices[:1] if locked is not None or python else choices[: 1 + OLDER_PYTHONS_TRIED]
    refused: list[dict] = []
    for number, interpreter in enumerate(choices):
        try:
            last = number + 1 == len(choices)
            return _install(key, tree, as_of, locked, env, interpreter, refused, system_deps, not last)
        except BenchsmithError as exc:
            if number + 1 == len(choices) or not refuses_interpreter(str(exc)):
                raise
            log.warning(
                "%s: does not install on Python %s; trying Python %s: %s",
                key,
                interpreter[1],
                choices[number + 1][1],
                str(exc)[-300:],
            )
            refused.append({"python": interpreter[1], "reason": str(exc)[-400:]})
    raise AssertionError("unreachable: the last choice raises")


# How many older Pythons a resolution tries after the first refuses to install (an sdist of the lock's day that
# refuses a newer interpreter: numba's and llvmlite's setup.py guard their Python range).
OLDER_PYTHONS_TRIED = 2
_BUILD_FAILURE = re.compile(r"Build failures usually indicate|Failed to build|failed to build|Cannot install on Python")


def refuses_interpreter(error: str) -> bool:
    """Whether *error* (a failed ``uv pip sync``) is a package that would not build for the interpreter, which an
    older Python may have had a wheel of, rather than an unreachable index or a broken lock."""
    return "uv pip sync failed" in error and bool(_BUILD_FAILURE.search(error))


def _install(
    key: str,
    tree: Path,
    as_of: str | None,
    locked: TaskEnvironment | None,
    env: Path,
    interpreter: tuple[Path, str],
    refused: list[dict],
    system_deps: bool = False,
    older_python_left: bool = False,
) -> tuple[Path, dict, dict]:
    """Resolve (or take *locked*) and install the environment at *env* for *interpreter*; *refused*: the Pythons
    tried before it, each with why it would not install. A distribution that does not build is left out
    (a recorded lock excepted), unless an older Python is left to try for one that misses no system file."""
    manifest = env / "benchsmith-env.json"
    log.info(
        "creating the environment of %s with Python %s (%s)",
        key,
        interpreter[1],
        "the dataset's lock" if locked else f"resolved as of {as_of}" if as_of else "resolved against today's index",
    )
    shutil.rmtree(env, ignore_errors=True)
    _uv(key, "venv", "--quiet", "--python", str(shareable(interpreter[0])), str(env))
    python = env / "bin" / "python"
    if locked is not None:
        lock, used, dropped = env / "benchsmith.lock", ["the dataset's lock"], []
        write_text_atomic(lock, locked.lock)
    else:
        seeded = tuple(int(n) for n in interpreter[1].split(".")[:2]) < SEEDED_SETUPTOOLS_BEFORE
        lock, used, dropped = _lock(key, tree, env, python, as_of, seeded, interpreter[1])
    dated = ["--exclude-newer", as_of] if as_of else []
    sync = [uv_bin(), "pip", "sync", "--quiet", "--python", str(python), "--default-index", index_url(), *dated]
    not_built, system_packages = sync_what_builds(
        key, [*sync, str(lock)], lock, system_deps, locked is None, older_python_left
    )
    _check_package_absent(env, tree, key)
    check_own_import(key, python, *_own_packages(tree), not_built)
    unimportable = _drop_unimportable(key, python)
    _register_metadata(env, tree)
    installed = _installed(python)
    resolution = {
        "resolver": "uv",
        "mode": "latest" if as_of is None else "as-of",
        "as_of": as_of,
        "python": interpreter[1],
        "index": index_url(),
        "lock": str(lock),
        "lock_sha256": hashlib.sha256(lock.read_bytes()).hexdigest(),
        "declarations": used,
        "dropped": dropped,
    }
    if refused:
        resolution["python_refused"] = refused
    if unimportable:
        resolution["unimportable"] = unimportable
    if not_built:  # each with its first compiler line, the system file it lacked and the Debian package providing it
        resolution["not_built"] = not_built
    if system_packages:
        resolution["system_packages"] = system_packages
    write_text_atomic(
        manifest, json.dumps({"format": ENV_FORMAT, "installed": installed, "resolution": resolution}, indent=2)
    )
    return python, installed, resolution


def _lock(
    key: str, tree: Path, env: Path, python: Path, as_of: str | None, seeded: bool = False, version: str = ""
) -> tuple[Path, list[str], list[dict]]:
    """Resolve pytest, the package's requirements and every test declaration into ``<env>/benchsmith.lock``; with
    *seeded*, setuptools too, as the environments of a Python before 3.12 had it (:data:`SEEDED_SETUPTOOLS_BEFORE`).

    Everything together first; when that fails, the package's requirements and pytest alone (which must resolve),
    then each declaration added on its own, kept when it still resolves. The lock leaves the package out: tests
    import it from their copy of the tree."""
    lock = env / "benchsmith.lock"
    name = python_deps.distribution_name(tree)
    static = python_deps.runtime_requirements(tree)
    build_env = build_environ(tree)
    with tempfile.TemporaryDirectory() as scratch:
        core = ["pytest"]
        if static is not None:
            core += static[1]
        else:  # only a build tells the requirements (setup.py): uv builds a copy (builds write into the tree)
            copy = Path(scratch) / tree.name
            shutil.copytree(tree, copy)
            core.append(f"{copy}[{','.join(python_deps.TEST_NAMES)}]")
        declarations = [
            python_deps.DeclaredRequirements("benchsmith: per-test timeouts", ("pytest-timeout",)),
            *python_deps.declarations_for_tests(tree, version),
        ]
        if seeded:
            declarations.append(
                python_deps.DeclaredRequirements(
                    "benchsmith: setuptools, in every environment before Python 3.12", ("setuptools",)
                )
            )
        # a declaration with nothing to install (a conda package PyPI does not have) is left out with its reason
        dropped = [{"source": d.source, "reason": d.left_out} for d in declarations if d.left_out]
        declarations = [d for d in declarations if not d.left_out]
        everything = core + [r for d in declarations for r in d.requirements]
        if _compile(key, everything, lock, python, as_of, name, scratch, build_env) is None:
            return lock, [d.source for d in declarations], dropped
        failure = _compile(key, core, lock, python, as_of, name, scratch, build_env)
        if failure is not None:
            raise BenchsmithError(
                f"{key}: its requirements do not resolve{f' as of {as_of}' if as_of else ''}: {failure}"
            )
        kept: list[str] = []
        used: list[str] = []
        for declaration in declarations:
            failure = _compile(
                key, core + kept + list(declaration.requirements), lock, python, as_of, name, scratch, build_env
            )
            if failure is None:
                kept += declaration.requirements
                used.append(declaration.source)
            else:
                log.warning("%s: leaving out %s: %s", key, declaration.source, failure)
                dropped.append({"source": declaration.source, "reason": failure})
        if _compile(key, core + kept, lock, python, as_of, name, scratch, build_env) is not None:
            raise BenchsmithError(f"{key}: its requirements resolved once and not again; see {lock}")
    return lock, used, dropped


def _compile(
    key: str,
    requirements: list[str],
    lock: Path,
    python: Path,
    as_of: str | None,
    name: str,
    scratch: str,
    env: dict[str, str] | None = None,
) -> str | None:
    """``uv pip compile`` *requirements* into *lock*; None on success, else uv's reason in one line."""
    source = Path(scratch) / "requirements.in"
    source.write_text("\n".join(dict.fromkeys(requirements)) + "\n")
    output = Path(scratch) / "benchsmith.lock"
    argv = [
        uv_bin(),
        "pip",
        "compile",
        "--no-config",
        "--quiet",
        "--no-header",
        "--python",
        str(python),
        "--default-index",
        index_url(),
        str(source),
        "-o",
        str(output),
    ]
    argv += ["--exclude-newer", as_of] if as_of else []
    argv += ["--no-emit-package", name] if name else []
    completed = subprocess.run(argv, capture_output=True, text=True, cwd=scratch, env=env)
    if completed.returncode != 0:
        lines = [line.strip() for line in completed.stderr.splitlines() if line.strip()]
        return " ".join(lines)[-400:] or f"uv exited with {completed.returncode}"
    body = [line for line in output.read_text().splitlines() if scratch not in line]  # the built copy itself
    header = f"# benchsmith environment of {key}: uv pip compile, " + (
        f"--exclude-newer {as_of}" if as_of else "latest"
    )
    write_text_atomic(lock, "\n".join([header, *body]) + "\n")
    return None


# The first release of each Python: a repository dated before one was never run on it, and the packages of its day
# often have no wheels (or no support) for it; for half a year after it, many still had none (xarray of March 2023
# pins an llvmlite that refuses 3.11), so a Python counts from six months after its release.
PYTHON_ADOPTED_AFTER = timedelta(days=183)


PYTHON_RELEASED = {
    (3, 6): "2016-12-23",
    (3, 7): "2018-06-27",
    (3, 8): "2019-10-14",
    (3, 9): "2020-10-05",
    (3, 10): "2021-10-04",
    (3, 11): "2022-10-24",
    (3, 12): "2023-10-02",
    (3, 13): "2024-10-07",
    (3, 14): "2025-10-07",
}


def _interpreter(tree: Path, key: str, recorded: str = "", as_of: str | None = None) -> tuple[Path, str]:
    """The first of :func:`_interpreter_choices`."""
    return _interpreter_choices(tree, key, recorded, as_of)[0]


def _interpreter_choices(tree: Path, key: str, recorded: str = "", as_of: str | None = None) -> list[tuple[Path, str]]:
    """Interpreters that satisfy the repository's ``requires-python``, best first: benchsmith's own when it does and
    was released by *as_of*, else the newest one found (pyenv's, the system's, uv's) that was, else the newest found;
    then the older minor versions released by then, newest first. A one-line error naming the requirement and what
    was found when none does.

    With *recorded* (the version a dataset's lock was resolved for), one of the same minor version, where there is
    one: a lock holds the wheels of one Python."""
    requirement = python_deps.requires_python(tree)
    current = platform.python_version()
    own = runnable_by_others(Path(sys.executable))
    if recorded:
        minor = tuple(recorded.split(".")[:2])
        if tuple(current.split(".")[:2]) == minor and own:
            return [(Path(sys.executable), current)]
        same = _runnable_first([(v, p) for p, v in _interpreters().items() if tuple(v.split(".")[:2]) == minor])
        if same:
            version, path = max(same, key=lambda m: _version_key(m[0]))
            return [(path, version)]
        log.warning(
            "%s: its environment is meant for Python %s; no Python %s here, so it is built for another",
            key,
            recorded,
            ".".join(minor),
        )

    def released(version: str) -> bool:
        minor = tuple(int(x) for x in version.split(".")[:2])
        if as_of is None:
            return True
        if minor not in PYTHON_RELEASED:  # one newer than the table was released later; an older one long before
            return minor < min(PYTHON_RELEASED)
        adopted = datetime.fromisoformat(PYTHON_RELEASED[minor]) + PYTHON_ADOPTED_AFTER
        return adopted.strftime("%Y-%m-%d") <= as_of[:10]

    choices = []
    if (not requirement or SpecifierSet(requirement).contains(current, prereleases=True)) and released(current) and own:
        choices.append((Path(sys.executable), current))
    found = _interpreters()
    matching = [
        (v, p)
        for p, v in found.items()
        if v.startswith("3.") and SpecifierSet(requirement or ">=3").contains(v, prereleases=True)
    ]
    if any(released(v) for v, _ in matching):
        matching = [(v, p) for v, p in matching if released(v)]
    if not matching and not choices:
        raise BenchsmithError(
            f"{key}: requires Python {requirement}; no interpreter here matches "
            f"(found {_listed(found)}); "
            f"`uv python install '{requirement}'` provides one where python.org builds can be downloaded"
        )
    if not choices:  # the newest the sandbox's uid can run (or the newest)
        version, path = max(_runnable_first(matching), key=lambda m: _version_key(m[0]))
        choices.append((path, version))
    by_minor: dict[tuple[int, ...], list[tuple[str, Path]]] = {}
    for version, path in matching:
        by_minor.setdefault(_version_key(version)[:2], []).append((version, path))
    for minor in sorted(by_minor, reverse=True):  # then older minors: per minor the newest runnable (or the newest)
        if minor < _version_key(choices[-1][1])[:2]:
            found_here = [(v, p) for v, p in by_minor[minor] if runnable_by_others(p)] or by_minor[minor]
            version, path = max(found_here, key=lambda m: _version_key(m[0]))
            choices.append((path, version))
    return choices


def check_python_named(minor: str) -> None:
    """A one-line error unless an interpreter of *minor* ("3.8"), as a user names one for a build, is on this
    machine: a dataset's recorded version falls back to another with a warning, a version asked for does not."""
    if not re.fullmatch(r"3\.\d+", minor):
        raise BenchsmithError(f"--python {minor}: give a minor version of Python 3, as 3.8")
    found = _interpreters()
    if not any(tuple(v.split(".")[:2]) == tuple(minor.split(".")) for v in found.values()):
        raise BenchsmithError(
            f"--python {minor}: no Python {minor} here (found {_listed(found)}); "
            f"`uv python install {minor}` provides one where python.org builds can be downloaded"
        )


def _listed(found: dict[Path, str]) -> str:
    """The versions of :func:`_interpreters`' interpreters, oldest first, for an error."""
    return ", ".join(sorted(set(found.values()), key=_version_key)) or "none"


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", version)[:3])


def _runnable_first(found: list[tuple[str, Path]]) -> list[tuple[str, Path]]:
    """The interpreters of *found* that the sandbox's uid can run, or all of them when none can (the one chosen is
    then copied where it can, :func:`benchsmith.sources.python.shared_interpreter.shareable`)."""
    runnable = [(v, p) for v, p in found if runnable_by_others(p)]
    return runnable or found


def _interpreters() -> dict[Path, str]:
    """Interpreters on this machine (pyenv's versions, /usr/bin, /usr/local/bin, uv's), each with its version."""
    candidates = {Path(sys.executable)}
    candidates |= set(Path.home().glob(".pyenv/versions/*/bin/python3"))
    candidates |= {
        p
        for folder in (Path("/usr/bin"), Path("/usr/local/bin"))
        for p in folder.glob("python3.*")
        if re.fullmatch(r"python3\.\d+", p.name)
    }
    listing = subprocess.run(
        [uv_bin(), "python", "list", "--only-installed", "--output-format", "json"], capture_output=True, text=True
    )
    if listing.returncode == 0:
        candidates |= {Path(entry["path"]) for entry in json.loads(listing.stdout or "[]") if entry.get("path")}
    found = {}
    for path in candidates:
        probe = subprocess.run(
            [str(path), "-c", "import platform; print(platform.python_version())"], capture_output=True, text=True
        )
        if probe.returncode == 0:
            found[path] = probe.stdout.strip()
    return found


@functools.cache
def uv_bin() -> str:
    from uv import find_uv_bin

    return find_uv_bin()


def _uv(key: str, *args: str) -> None:
    completed = subprocess.run([uv_bin(), *args], capture_output=True, text=True)
    if completed.returncode != 0:
        raise BenchsmithError(f"{key}: uv {' '.join(args[:2])} failed: {' '.join(completed.stderr.split())[-400:]}")


def _own_packages(tree: Path) -> tuple[Path, list[str]]:
    """The folder the tests import the package from, and the package's top-level packages there."""
    root = tree / "src" if any((tree / "src").glob("*/__init__.py")) else tree
    return root, sorted({p.parent.name for p in root.glob("*/__init__.py")} - {"tests", "test", "testing", "docs"})


def _check_package_absent(env: Path, tree: Path, key: str) -> None:
    """The environment must not import the package from anywhere but the tree: a copy of it there would hold the
    ground truth, readable by every candidate, and would answer imports of the class the task removed."""
    roots = [tree / "src", tree] if (tree / "src").is_dir() else [tree]
    names = {p.parent.name for root in roots for p in root.glob("*/__init__.py")} - {"tests", "test", "testing", "docs"}
    for site_packages in env.glob("lib/python*/site-packages"):
        left = sorted(n for n in names if (site_packages / n).exists() or (site_packages / f"{n}.py").exists())
        if left:
            raise BenchsmithError(
                f"{key}: its environment still holds the package {', '.join(left)} in {site_packages} "
                "after uninstalling it; delete the environment and rebuild"
            )


# Run by the environment's interpreter: every top-level module of every installed distribution imported once; the
# distributions one of whose modules raises anything but ImportError, each with the first such error.
_IMPORT_PROBE = r"""
import importlib, importlib.metadata, json, sys
broken = {}
for dist in sorted(importlib.metadata.distributions(), key=lambda d: d.metadata["Name"] or ""):
    tops = set()
    for path in dist.files or []:
        parts = path.parts
        if len(parts) < 1 or parts[0] in ("..", "bin", "__pycache__") or parts[0].endswith((".dist-info", ".data")):
            continue
        if len(parts) == 1 and not parts[0].endswith(".py"):
            continue
        top = parts[0][:-3] if len(parts) == 1 else parts[0]  # (no str.removesuffix before Python 3.9)
        if top.isidentifier() and not top.startswith("_") and top not in sys.argv[1:]:
            tops.add(top)
    for top in sorted(tops):
        try:
            importlib.import_module(top)
        except ImportError:
            pass  # an optional dependency of its own missing: what importorskip expects
        except BaseException as exc:
            broken.setdefault(dist.metadata["Name"], f"import {top}: {type(exc).__name__}: {exc}"[:300])
print(json.dumps(broken))
"""
# Never left out: what runs the tests.
_RUNNER_DISTRIBUTIONS = ("pytest", "_pytest", "pluggy")


def _drop_unimportable(key: str, python: Path) -> dict[str, str]:
    """Uninstall the installed distributions that raise on import for another reason than a missing module (a
    system library this machine lacks: cfgrib's eccodes; an extension built for another numpy: numba 0.53, which
    xarray's lock of March 2023 pairs with numpy 1.24), so that a suite's ``importorskip`` skips their tests
    instead of its conftest failing; distribution -> the error, as recorded in the resolution."""
    probe = subprocess.run(
        [str(python), "-I", "-c", _IMPORT_PROBE, *_RUNNER_DISTRIBUTIONS], capture_output=True, text=True, timeout=900
    )
    try:
        broken = json.loads(probe.stdout.strip().splitlines()[-1]) if probe.returncode == 0 else None
    except (ValueError, IndexError):
        broken = None
    if broken is None:  # a module that kills the interpreter: nothing is known, nothing dropped
        log.warning("%s: probing the environment's imports failed: %s", key, probe.stderr.strip()[-300:])
        return {}
    broken = {name: why for name, why in broken.items() if name.lower() not in _RUNNER_DISTRIBUTIONS}
    if broken:
        log.warning(
            "%s: leaving out what does not import here: %s", key, "; ".join(f"{n} ({w})" for n, w in broken.items())
        )
        _uv(key, "pip", "uninstall", "--quiet", "--python", str(python), *sorted(broken))
    return broken


def _register_metadata(env: Path, tree: Path) -> None:
    """The package's metadata, without its code, in the environment: packages that read their own version at import
    (``importlib.metadata.version("litestar")``) find it, while every module still comes from the task's copy."""
    name = python_deps.distribution_name(tree)
    if not name:
        return
    version = python_deps.distribution_version(tree)
    if version == "0" and (tree / SCM_VERSION).is_file():  # a version git gives (setuptools-scm)
        version = (tree / SCM_VERSION).read_text().strip() or version
    for site_packages in env.glob("lib/python*/site-packages"):
        info = site_packages / f"{re.sub(r'[-_.]+', '_', name)}-{version}.dist-info"
        info.mkdir(exist_ok=True)
        (info / "METADATA").write_text(_own_metadata(tree, name, version))
        (info / "INSTALLER").write_text("benchsmith (metadata only: the code is the task's copy)\n")
        (info / "RECORD").write_text("")


def _own_metadata(tree: Path, name: str, version: str) -> str:
    """The sdist's own PKG-INFO where it has one of this name and version (packages read their summary, authors and
    URLs from it too: attrs's ``__description__``, ``__url__``), else the name and version alone."""
    for info in (
        tree / "PKG-INFO",
        *sorted(tree.glob("*.egg-info/PKG-INFO")),
        *sorted(tree.glob("src/*.egg-info/PKG-INFO")),
    ):
        if not info.is_file():
            continue
        message = email.parser.Parser().parsestr(info.read_text(encoding="utf-8", errors="replace"), headersonly=True)
        same_name = canonicalize_name(message.get("Name") or "") == canonicalize_name(name)
        if same_name and message.get("Version") == version:
            return info.read_text(encoding="utf-8", errors="replace")
    return f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"


@dataclass(frozen=True)
class Runtime:
    """What a jailed test run needs of an environment: the venv and the installation of its base interpreter."""

    env: Path
    prefixes: tuple[Path, ...]  # the base interpreter's installation, where not already part of every jail (/usr)
    hidden: tuple[Path, ...]  # site-packages of the base and system interpreters: never on the env's path, and they


@functools.cache
def runtime(python: Path) -> Runtime:
    """The folders that *python* (``<env>/bin/python``, a link to an interpreter elsewhere, e.g. under
    ``/root/.pyenv``) needs to start, found by asking it; never a whole home folder."""
    probe = (
        "import json, site, sys; prefixes = [sys.base_prefix, sys.base_exec_prefix]; "
        "print(json.dumps([*prefixes, site.getsitepackages(prefixes)]))"
    )
    completed = subprocess.run([str(python), "-I", "-c", probe], capture_output=True, text=True)
    if completed.returncode != 0:
        raise BenchsmithError(
            f"{python}: the environment's interpreter does not start: {completed.stderr.strip()[-300:]}"
        )
    base, exec_base, base_site = json.loads(completed.stdout)
    real = Path(os.path.realpath(python))
    candidates = [Path(base), Path(exec_base), real.parent.parent]
    prefixes: list[Path] = []
    for prefix in candidates:
        if prefix == Path("/") or prefix.is_relative_to("/usr") or any(prefix.is_relative_to(p) for p in prefixes):
            continue
        prefixes = [p for p in prefixes if not p.is_relative_to(prefix)] + [prefix]
    system = [*Path("/usr/lib").glob("python3*/*-packages"), *Path("/usr/local/lib").glob("python3*/*-packages")]
    hidden = sorted(
        {
            Path(p)
            for p in [*base_site, *system]
            if Path(p).is_dir()
            and not Path(p).is_symlink()
            and any(Path(p).is_relative_to(r) for r in [Path("/usr"), *prefixes])
        }
    )
    return Runtime(python.parent.parent, tuple(prefixes), tuple(hidden))


def _installed(python: Path) -> dict:
    listing = subprocess.run(
        [uv_bin(), "pip", "list", "--format", "json", "--python", str(python)],
        capture_output=True,
        text=True,
        check=True,
    )
    return {p["name"]: p["version"] for p in json.loads(listing.stdout)}
