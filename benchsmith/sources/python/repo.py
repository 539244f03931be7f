"""A Python repository to build tasks from: its checkout (:mod:`benchsmith.sources.checkout`) and its environment
(:mod:`benchsmith.sources.python.environment`).

The pristine tree and the environment are cached per SPEC and commit; every run works on copies of the tree. The
environment stays readable to the sandbox's uid (candidates run in it); the tree is private to root.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from benchsmith.core.errors import BenchsmithError
from benchsmith.core.schema import Service, TaskEnvironment
from benchsmith.sources.checkout import as_utc, index_url, protect_private_caches, source_tree
from benchsmith.sources.python.environment import environment, uv_bin
from benchsmith.sources.python.extensions import build_extensions, fallback_switches

log = logging.getLogger(__name__)

RESOLVE_MODES = ("as-of", "latest")
IMPLEMENTATIONS = ("", "pure-python")


@dataclass(frozen=True)
class Repository:
    spec: str
    commit: str
    key: str  # names the cache entries: "pypi-requests-2.31.0"
    tree: Path  # pristine source tree
    import_root: str  # relative folder that goes on PYTHONPATH ("src" or "")
    python: Path  # the environment's interpreter
    installed: dict  # name -> version, as pip reports them
    package: str  # the distribution's import name(s) guess, for the card
    resolution: dict = field(default_factory=dict)  # how the environment was resolved: as-of date, lock, sources
    services: tuple[Service, ...] = ()  # started for every run of its tests (benchsmith.runners.sandbox.services)
    implementation: str = ""  # "pure-python": its compiled modules are not imported, its fallback switches are set
    # Environment variables every run of its tests gets: the fallback switches its code reads (MULTIDICT_NO_EXTENSIONS)
    environ: dict[str, str] = field(default_factory=dict)


def resolve(
    spec: str,
    commit: str | None = None,
    as_of: str | None = None,
    mode: str = "as-of",
    locked: TaskEnvironment | None = None,
    system_deps: bool = False,
    implementation: str = "",
) -> Repository:
    """Fetch and prepare *spec*; cached, so a second call does no work.

    The environment is resolved with packages uploaded before *as_of* (default: the sdist's upload time, the
    commit's committer date, the folder's newest file), or against today's index with ``mode="latest"``. With
    *locked* (a task's recorded environment, when it holds a lock) nothing is resolved: exactly the lock the dataset
    was built with is installed, whatever the index offers today and whatever the tree's own date says, and the
    services and implementation it records are those of every run. With *system_deps*, a dependency whose build
    lacks a header or library gets the Debian package that provides it.

    With *implementation* ``"pure-python"`` no extension is built, the tests' runs import none of the tree's compiled
    modules (``benchsmith_directcov`` refuses them) and get the fallback switches the package's code reads."""
    python = locked.python if locked is not None else ""  # a published task's set-up may name it without a lock
    services = tuple(locked.services) if locked is not None else ()
    implementation = locked.implementation if locked is not None and locked.implementation else implementation
    if implementation not in IMPLEMENTATIONS:
        raise BenchsmithError(f"implementation {implementation!r}: expected one of {IMPLEMENTATIONS}")
    if locked is not None and locked.lock:
        if hashlib.sha256(locked.lock.encode()).hexdigest() != locked.lock_sha256:
            raise BenchsmithError(
                f"{spec}: the dataset's environment lock does not match its sha256 {locked.lock_sha256}"
            )
        mode, as_of = locked.resolve or "as-of", locked.as_of or None
    else:
        locked = None
    if mode not in RESOLVE_MODES:
        raise BenchsmithError(f"--resolve {mode}: expected one of {', '.join(RESOLVE_MODES)}")
    protect_private_caches()
    key, tree, dated = source_tree(spec, commit)
    import_root = "src" if (tree / "src").is_dir() and any((tree / "src").glob("*/__init__.py")) else ""
    when = None if mode == "latest" else parse_as_of(as_of) if as_of else dated
    python, installed, resolution = environment(key, tree, when, locked, python, system_deps)
    environ: dict[str, str] = {}
    if implementation == "pure-python":
        environ = fallback_switches(tree, import_root)
        resolution = {
            **resolution,
            "implementation": {
                "tested": "pure-python",
                "switches": environ,
                "compiled_modules": "not imported (refused to the tests' runs)",
            },
        }
    else:
        extensions = build_extensions(tree, import_root, python.parent.parent, uv_bin(), index_url(), when)
        if extensions:  # the card's resolution names the compiled modules put into the tree, or why there are none
            tested = "compiled" if extensions.get("built") else "pure-python (no compiled module built)"
            resolution = {**resolution, "compiled_extensions": extensions, "implementation": {"tested": tested}}
    package = next(
        (p.parent.name for p in sorted((tree / import_root).glob("*/__init__.py")) if p.parent.name != "tests"), ""
    )
    return Repository(
        spec,
        commit or "",
        key,
        tree,
        import_root,
        python,
        installed,
        package,
        resolution,
        services,
        implementation,
        environ,
    )


def parse_as_of(text: str) -> str:
    """``2023-05-22`` or an ISO 8601 time (UTC unless it names its offset) → ``2023-05-22T00:00:00Z``."""
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise BenchsmithError(f"--as-of {text}: expected a date (2023-05-22) or an ISO 8601 time") from None
    return as_utc(moment)


def run_variant(repo: Repository) -> str:
    """What sets *repo*'s runs apart beyond its lock (the services started, the implementation tested), short; ""
    for neither. Cached outcomes of one are never another's."""
    if not repo.services and not repo.implementation:
        return ""
    text = repr((sorted((s.kind, s.port, s.user, s.password, s.database) for s in repo.services), repo.implementation))
    return hashlib.sha256(text.encode()).hexdigest()[:8]


def task_environment(repo: Repository) -> TaskEnvironment:
    """What a task records of *repo*'s environment, for :func:`resolve` to install the same set at evaluation."""
    resolution = repo.resolution
    lock = Path(resolution["lock"]).read_text(encoding="utf-8") if resolution.get("lock") else ""
    return TaskEnvironment(
        resolution.get("mode", ""),
        resolution.get("as_of") or "",
        resolution.get("python", ""),
        lock,
        hashlib.sha256(lock.encode()).hexdigest() if lock else "",
        list(repo.services),
        repo.implementation,
    )

    #                           may hold another copy of the package under test (pyenv's 3.11 ships a click)
