"""What ``uv pip sync`` says when a distribution of the lock does not build here: which one, its first meaningful
compiler line, and the system file (a header, a library, a pkg-config module, a program) the build looked for.

An sdist that resolves may still not compile (pygraphviz's ``graphviz/cgraph.h: No such file or directory``,
psycopg2's ``pg_config executable not found``, mysqlclient's pkg-config module): uv then fails the whole sync with
the build's output. :func:`build_failures` reads that output; the environment leaves such a distribution out with
the line recorded, or, asked to, installs the Debian package that provides the missing file
(:mod:`benchsmith.sources.system_packages`) and tries again.
"""

from __future__ import annotations

import ast
import json
import logging
import os
import re
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from packaging.utils import canonicalize_name

from benchsmith.core.atomic import write_text_atomic
from benchsmith.core.errors import BenchsmithError
from benchsmith.sources import system_packages
from benchsmith.sources.system_packages import MissingFile, debian_package

log = logging.getLogger(__name__)

# uv: "Failed to build `pygraphviz==1.14`" (older releases: "Failed to build: `x==1`", "Failed to download and build")
_FAILED = re.compile(r"Failed to (?:download and )?build:? `([^`]+)`")
_COMPILER = re.compile(r"^\S+:\d+(?::\d+)?: (?:fatal )?error: .+")
_MISSING_HEADER = re.compile(r"fatal error: ([\w./+-]+\.h(?:h|pp|xx)?): No such file or directory")
_MISSING_LIBRARY = re.compile(r"cannot find -l([\w.+-]+)")
_MISSING_SHARED = re.compile(r"(lib[\w.+-]+\.so(?:\.[\d.]+)?): cannot open shared object file")
_MISSING_PKG_CONFIG = re.compile(
    r"Package '?([\w.+-]+)'?,? (?:required by '[^']*', )?(?:was )?not found(?: in the pkg-config search path)?"
)
_MISSING_PROGRAM = re.compile(
    r"(?:\b([\w.+-]+_config|[\w.+-]+-config) executable not found"
    r"|/bin/sh: \d+: ([\w.+-]+): not found"
    r"|\b([\w.+-]+): command not found"
    r"|No such file or directory: '([\w.+-]+-?config)')"
)
_UV_HINT = re.compile(r"install a library that provides `([^`]+)`")
_GENERIC = re.compile(
    r"error: (command '.*' failed|subprocess-exited-with-error|metadata-generation-failed|"
    r"legacy-install-failure|Failed to build)|^\s*(\[std(out|err)\]|hint:|cause:|note:)",
    re.I,
)
_ERROR_WORD = re.compile(r"\b(error|Error|ERROR|not found|No such file)\b")
_BUILT_MODULE = re.compile(r"build/lib[^/\s]*/([A-Za-z_]\w*)(?:\.py)?(?=/|\s|$)", re.M)


@dataclass(frozen=True)
class BuildFailure:
    """One distribution of a lock that failed to build."""

    requirement: str  # as uv names it: "pygraphviz==1.14"
    line: str  # the first meaningful line of its build's output (the compiler's, where it has one)
    missing: MissingFile | None = None
    modules: tuple[str, ...] = field(default=())  # top-level modules its build was making (from setuptools' copies)

    @property
    def name(self) -> str:
        return canonicalize_name(re.split(r"[=<>!~@ ;\[]", self.requirement, maxsplit=1)[0])


def build_failures(output: str) -> list[BuildFailure]:
    """The distributions *output* (``uv pip sync``'s stderr) says failed to build, each with its first meaningful
    line and the missing system file it names; empty when the sync failed for another reason."""
    found: dict[str, BuildFailure] = {}
    matches = list(_FAILED.finditer(output))
    for number, match in enumerate(matches):
        end = matches[number + 1].start() if number + 1 < len(matches) else len(output)
        block = output[match.end() : end]
        lines = [line.strip() for line in block.splitlines() if line.strip()]
        requirement = match[1].strip()
        if requirement not in found:
            found[requirement] = BuildFailure(
                requirement,
                first_meaningful_line(lines),
                missing_file(block),
                tuple(dict.fromkeys(_BUILT_MODULE.findall(block))),
            )
    return list(found.values())


def first_meaningful_line(lines: list[str]) -> str:
    """The compiler's first error line, else the first line naming an error that is not uv's or pip's frame
    around it (``error: command 'gcc' failed``), else the last line."""
    for line in lines:
        if _COMPILER.match(line):
            return line[:300]
    for line in lines:
        if _ERROR_WORD.search(line) and not _GENERIC.search(line):
            return line[:300]
    return lines[-1][:300] if lines else "(no output)"


def missing_file(text: str) -> MissingFile | None:
    """The system file *text* (a build's output, or an import's error) says is missing, if it names one."""
    if match := _MISSING_HEADER.search(text):
        return MissingFile("header", match[1])
    if match := _MISSING_LIBRARY.search(text):
        return MissingFile("library", f"lib{match[1]}.so")
    if match := _MISSING_SHARED.search(text):
        return MissingFile("shared object", match[1])
    if match := _MISSING_PKG_CONFIG.search(text):
        return MissingFile("pkg-config module", f"{match[1]}.pc")
    if match := _MISSING_PROGRAM.search(text):
        return MissingFile("program", next(g for g in match.groups() if g))
    if match := _UV_HINT.search(text):  # uv's own reading of the build's output
        name = match[1]
        return MissingFile("header" if name.endswith(".h") else "library", name)
    return None


# Each round installs a Debian package or leaves a distribution out, so a lock ends in at most this many rounds
# unless something else goes wrong
MAX_ROUNDS = 12
_LEFT_OUT = "# benchsmith: not built here, left out: "


def sync_what_builds(
    key: str,
    command: list[str],
    lock: Path,
    system_deps: bool = False,
    may_drop: bool = True,
    older_python_left: bool = False,
) -> tuple[list[dict], list[dict]]:
    """Run *command* (``uv pip sync`` of *lock*) until it installs: a distribution that fails to build is left out of
    the lock (a comment in its place says why) and the lock synced again; with *system_deps*, one whose build
    lacks a system file first gets the Debian package that provides it (installed, and named in the lock).

    Not with *may_drop* False (a dataset's recorded lock is installed as it is), and not for a failure that names no
    missing file while *older_python_left* (an older Python may still have a wheel of it, and the caller tries
    one): those raise the sync's error as before. (not built, system packages installed), as the resolution records
    them."""
    not_built: list[dict] = []
    installed: list[dict] = []
    tried: set[str] = set()
    for _ in range(MAX_ROUNDS):
        # uv wraps its report to $COLUMNS (pytest sets 80), which would cut the compiler's line in two
        completed = subprocess.run(
            command, capture_output=True, text=True, env={**os.environ, "COLUMNS": "100000", "NO_COLOR": "1"}
        )
        if completed.returncode == 0:
            return not_built, installed
        error = f"{key}: uv pip sync failed: {' '.join(completed.stderr.split())[-400:]}"
        failures = build_failures(completed.stderr)
        if not failures:
            raise BenchsmithError(error)
        for failure in failures:
            wanted = debian_package(failure.missing, update=system_deps) if failure.missing else None
            if system_deps and wanted and wanted not in tried and not system_packages.installed(wanted):
                tried.add(wanted)
                system_packages.install([wanted])
                installed.append(
                    {"package": wanted, "for": failure.missing.describe(), "requirement": failure.requirement}
                )
                _note(
                    lock,
                    f"# benchsmith: Debian package {wanted} installed, for {failure.requirement} "
                    f"({failure.missing.describe()})",
                )
                continue
            if not may_drop:
                recorded = recorded_system_packages(lock.read_text())
                raise BenchsmithError(
                    error
                    + (f" (the lock was built with the Debian packages {', '.join(recorded)})" if recorded else "")
                )
            if failure.missing is None and older_python_left:
                raise BenchsmithError(error)
            log.warning("%s: leaving out %s, which does not build here: %s", key, failure.requirement, failure.line)
            not_built.append(
                {
                    "requirement": failure.requirement,
                    "error": failure.line,
                    "missing": failure.missing.describe() if failure.missing else "",
                    "debian_package": wanted or "",
                    "modules": sorted(set(failure.modules) | provided_modules(failure.name)),
                }
            )
            _leave_out(lock, failure)
    raise BenchsmithError(f"{key}: uv pip sync still fails after {MAX_ROUNDS} rounds of leaving out; see {lock}")


def provided_modules(name: str) -> set[str]:
    """The import names a distribution called *name* most likely provides (``python-ldap`` → ``ldap``)."""
    module = canonicalize_name(name).replace("-", "_")
    return {module, module.removeprefix("python_"), module.removeprefix("py")} - {""}


def recorded_system_packages(lock_text: str) -> list[str]:
    """The Debian packages a lock says it was built with."""
    return re.findall(r"^# benchsmith: Debian package (\S+) installed", lock_text, re.M)


def _note(lock: Path, line: str) -> None:
    text = lock.read_text()
    header, _, body = text.partition("\n")
    write_text_atomic(lock, f"{header}\n{line}\n{body}")


def _leave_out(lock: Path, failure: BuildFailure) -> None:
    """*failure*'s requirement in *lock* replaced by a comment saying why it is not there."""
    lines = lock.read_text().splitlines()
    for number, line in enumerate(lines):
        if line.startswith(("#", " ")) or not line.strip():
            continue
        head = re.split(r"[=<>!~@ ;\[]", line, maxsplit=1)[0]
        if canonicalize_name(head) == failure.name:
            lines[number] = f"{_LEFT_OUT}{line.strip()} ({failure.line[:200]})"
            write_text_atomic(lock, "\n".join(lines) + "\n")
            return
    raise BenchsmithError(f"{failure.requirement} failed to build but is not in {lock}: cannot leave it out")


def _unconditional_imports(path: Path) -> set[str]:
    """The top-level modules *path* imports in its module body, outside ``try`` and ``if``."""
    try:
        module = ast.parse(path.read_text(encoding="utf-8", errors="replace"))
    except (SyntaxError, ValueError):
        return set()
    found = set()
    for node in module.body:
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found


# Run by the environment's interpreter: which of the modules named are nowhere on its path
_ABSENT_PROBE = "import importlib.util, sys; print(*[m for m in sys.argv[1:] if importlib.util.find_spec(m) is None])"
# Run by the environment's interpreter with the tree's import root first on the path: each of the package's own
# top-level packages imported; the ones that fail on a missing module, with its name.
_OWN_IMPORT_PROBE = r"""
import importlib, json, sys
sys.path.insert(0, sys.argv[1])
missing = {}
for name in sys.argv[2:]:
    try:
        importlib.import_module(name)
    except ModuleNotFoundError as exc:
        missing[name] = exc.name or ""
    except BaseException:
        pass  # another failure (a compiled module not built yet): the suite's run tells
print(json.dumps(missing))
"""


def check_own_import(key: str, python: Path, root: Path, packages: list[str], not_built: list[dict]) -> None:
    """A one-line error when the project's own code (*packages*, under *root*) needs a module of a distribution that
    did not build: one of its modules imports it unconditionally at its top (not in a function, not under
    ``try``), or importing a package fails on it. The one loss that leaves nothing of the code to test."""
    if not not_built or not packages:
        return
    lost = {module: entry for entry in not_built for module in entry["modules"]}
    # only a module the environment really lacks (pygraphviz's guessed "graphviz" is another, installed distribution)
    absent = subprocess.run(
        [str(python), "-I", "-c", _ABSENT_PROBE, *lost], capture_output=True, text=True, timeout=300
    ).stdout.split()
    lost = {module: entry for module, entry in lost.items() if module in absent}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            for module in _unconditional_imports(path):
                if module in lost:
                    entry = lost[module]
                    raise _needed(key, entry, f"{path.relative_to(root).as_posix()} imports {module}")
    try:
        with tempfile.TemporaryDirectory() as scratch:
            probe = subprocess.run(
                [str(python), "-I", "-B", "-c", _OWN_IMPORT_PROBE, str(root), *packages],
                capture_output=True,
                text=True,
                cwd=scratch,
                timeout=600,
            )
    except subprocess.TimeoutExpired:  # an import that hangs: the suite's run will tell
        return
    try:
        missing = json.loads(probe.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return
    for package, module in missing.items():
        top = module.split(".")[0]
        entry = next((e for e in not_built if top in e["modules"]), None)
        if entry is not None:
            raise _needed(key, entry, f"import {package}: no module named {module!r}")


def _needed(key: str, entry: dict, how: str) -> BenchsmithError:
    """The one line of :func:`check_own_import`: what needs the distribution, its compiler line, what would help."""
    helps = (
        f"; the Debian package {entry['debian_package']} provides {entry['missing']} (--system-deps installs it)"
        if entry.get("debian_package")
        else ""
    )
    return BenchsmithError(
        f"{key}: its own code needs {entry['requirement']} at import ({how}), which does not build here: "
        f"{entry['error']}{helps}"
    )
