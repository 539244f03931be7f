"""Running a repository's pytest suite, sandboxed, with our plugin reporting each test through a pipe.

Outcomes (and, when asked, direct coverage) come from the
``benchsmith_directcov`` plugin as JSON lines written to a pipe the harness
made and the test process inherited (``BENCHSMITH_REPORT_FD``): nothing is
read back from the tree the tests ran in, so nothing there can be swapped for
a link to somewhere else. The build's runs (the suite, the class removed, the
gold and the empty class; all trusted code, run by
``benchsmith.builders.classbench.python.suite.run_tests`` with :func:`trusted_command`) work in one
copy of the tree; the evaluation of untrusted candidates
(``benchsmith.runners.python.class_runner``) builds a jail per candidate and shares only
:func:`pytest_argv` and :func:`run_reporting` with it.
"""

from __future__ import annotations

import configparser
import dataclasses
import hashlib
import json
import logging
import os
import re
import select
import shlex
import shutil
import subprocess
import time
import tomllib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from benchsmith.core.atomic import atomic_path
from benchsmith.core.bounds import encodable
from benchsmith.core.config import cache_dir
from benchsmith.core.errors import BenchsmithError
from benchsmith.core.schema import Service
from benchsmith.runners.sandbox import jail as sandbox
from benchsmith.runners.sandbox import services, streams
from benchsmith.sources.python.repo import Repository

log = logging.getLogger(__name__)

PER_TEST_TIMEOUT = 60
REPORT_LIMIT = 256 << 20  # a whole suite's direct coverage fits; beyond this a report is not ours
TRUSTED_LOG_BYTES = 64 << 20  # the build's own runs (trusted code) keep this much of a suite's output
PYTEST_CONFIGS = ("pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg")
OWN_CONFIG = ".benchsmith-pytest.ini"


@dataclass(frozen=True)
class PluginReport:
    """What came through the pipe: ``(node id, outcome)`` in the order sent, and each test's direct calls."""

    tests: list[tuple[str, str]] = field(default_factory=list)
    calls: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    malformed: str = ""  # why the bytes are not a report our plugin wrote; "" when they are
    # node id -> the end of pytest's report of its failure. Written by the process under test, hence forgeable: shown
    # to a model as feedback, never used to decide an outcome.
    messages: dict[str, str] = field(default_factory=dict)
    # The node ids the session collected (after selection), when the run asked for them (BENCHSMITH_REPORT_COLLECTED)
    # and pytest got that far; None otherwise. Only the build's trusted suite run reads it.
    collected: list[str] | None = None
    # pytest's exit status from its session-finish hook, when the run asked for the collected ids and got that far
    finished: int | None = None


SERVICE_LAUNCHER = "benchsmith_service_launcher.py"  # in the plugin's folder: what starts a run's services


def plugin_dir() -> Path:
    """The folder of our pytest plugin and the service launcher, read-only in every run.

    It is named by a hash of both files: a folder's files are written once and never rewritten, so that the bytecode
    compiled for them (pytest rewrites and compiles the plugin as it loads it, into the run's read-only pycache prefix)
    stays valid. Rewriting one folder's plugin (a newer benchsmith, or two versions sharing a cache) gave it a new
    mtime, which no pycache matched again: every run rewrote and compiled its 1,600 lines, about 30 ms."""
    sources = (
        (Path(__file__).with_name("directcov.py"), "benchsmith_directcov.py"),
        (services.LAUNCHER, SERVICE_LAUNCHER),
    )
    contents = [source.read_bytes() for source, _ in sources]
    digest = hashlib.sha256(b"\0".join(contents)).hexdigest()[:16]
    folder = cache_dir("classbench", "plugin", digest)
    for data, (_, name) in zip(contents, sources):
        target = folder / name
        if not target.exists() or target.read_bytes() != data:
            # A unique staging name: two workers of one process (the same pid) may copy it at once; a run starting
            # meanwhile never sees half a file.
            with atomic_path(target) as staging:
                staging.write_bytes(data)
                staging.chmod(0o644)
    return folder


def work_copy(tree: Path, folder: Path, slot: int) -> Path:
    """A fresh copy of *tree* at *folder*, writable by the sandbox of *slot* (the build's trusted runs only)."""
    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(tree, folder, symlinks=True, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
    folder.chmod(0o755)
    sandbox.give_to_sandbox(folder, slot)
    return folder


@contextmanager
def swapped_module(module: Path, text: str) -> Iterator[None]:
    """*module* holds *text* inside the block and its original bytes again afterwards (trusted code only: the
    build's own runs; a candidate never runs in a tree that root writes back into)."""
    original = module.read_bytes()
    module.write_text(text, encoding="utf-8", errors="surrogateescape")
    try:
        yield
    finally:
        module.write_bytes(original)


def has_own_config(tree: Path) -> bool:
    """Whether pytest finds its configuration in *tree*; without one it would adopt one from a folder above."""
    return any(_has_pytest_section(tree / name) for name in PYTEST_CONFIGS)


def pytest_argv(repo: Repository, rootdir: Path, config: Path | None) -> list[str]:
    """The pytest command line, without its targets: our plugin in, the tree's own addopts and cache out, but the
    plugins its addopts load (:func:`addopts_plugins`)."""
    argv = [
        str(repo.python),
        "-m",
        "pytest",
        "-q",
        "--tb=short",
        "-p",
        "no:cacheprovider",
        "-o",
        "addopts=",
        "-W",
        "ignore::DeprecationWarning",
        f"--rootdir={rootdir}",
    ]
    if config is not None:
        argv += ["-c", str(config)]
    if "pytest-timeout" in repo.installed and not runs_its_own_pytest(repo):  # autoloaded plugins are off there
        argv.append(f"--timeout={PER_TEST_TIMEOUT}")
    for plugin in addopts_plugins(repo):
        argv += ["-p", plugin]
    return argv + ["-p", "benchsmith_directcov"]


def installed_as_in_tox(repo: Repository, tree: Path) -> dict[str, str]:
    """What a test run adds to its environment so that tools find what tox would have installed: PATH with the
    environment's scripts first, as in an activated environment (pytest-mypy-plugins runs ``mypy`` by name), and
    MYPYPATH at the copy's import root, since mypy looks for the package among installed ones, never on
    PYTHONPATH, and the environment holds only its metadata (attrs's typing tests import ``attrs``)."""
    return {
        "PATH": os.pathsep.join([str(repo.python.parent), os.environ.get("PATH", "/usr/bin:/bin")]),
        "MYPYPATH": str(tree / repo.import_root),
    }


def runs_its_own_pytest(repo: Repository) -> bool:
    """Whether *repo* is pytest itself: the copy on ``PYTHONPATH`` then shadows the environment's pytest, and runs
    its own suite."""
    root = repo.tree / repo.import_root
    return (root / "pytest").is_dir() or (root / "pytest.py").is_file()


# The top-level packages pytest runs on: a module of one of them in the tree is the runner's own code.
RUNNER_PACKAGES = frozenset({"pytest", "_pytest", "pluggy", "py", "_py"})


# What directcov's guard raises where it refuses the candidate's code something ("sys._getframe")
_REFUSED = re.compile(r"benchsmith: ([\w.]+) is refused to the candidate's code")


def refused_calls(messages: dict[str, str]) -> dict[str, str]:
    """Of a run's failure messages (node id -> message), those of tests that failed because the candidate guard
    refused the class's code a call: node id -> the call ("sys._getframe")."""
    return {node: found[1] for node, message in messages.items() if (found := _REFUSED.search(message))}


def is_runner_module(repo: Repository, file_path: str) -> bool:
    """Whether *file_path* (relative to the tree) is a module of the test runner itself (on ``PYTHONPATH``, it shadows
    the environment's): a class of pytest's own ``_pytest`` is code the session runs on (it formats tracebacks, rewrites
    every test module, reports every
    outcome). The candidate guard of ``benchsmith_directcov`` cannot tell such a candidate's frames from the
    runner's, and refuses the runner what it needs; there, only the sentinels and twins hold the outcomes."""
    parts = Path(file_path).parts
    if repo.import_root:
        if parts[:1] != (repo.import_root,):
            return False
        parts = parts[1:]
    return bool(parts) and parts[0].removesuffix(".py") in RUNNER_PACKAGES


def pytest_environ(repo: Repository, tree: Path | None = None) -> dict[str, str]:
    """Environment variables every run of *repo*'s tests gets. When the repository is pytest itself, the third-party
    plugins installed for its suite (hypothesis's, pytest-timeout) are clients of the copy under test, loaded by
    their entry points into every session, the sessions its tests start too: a published task's copy, its names
    case-flipped, breaks them at configure, and with them every test. Its suite runs without them, as its own tests
    that need entry points arrange (they unset ``PYTEST_DISABLE_PLUGIN_AUTOLOAD``).

    At most 4 malloc arenas, in every run: glibc otherwise reserves one of 64 MiB of address space per thread (up to
    eight per core), so a suite that keeps threads alive runs out of the sandbox's address space long before it runs
    out of memory. A candidate's run needs it as much as the build's: litestar's Request directives (243 tests whose
    clients leave threads behind) failed 32 tests with "can't start new thread" under 4 GiB, none with the cap.

    A repository built for its pure-Python fallback gets its fallback switches, and its compiled modules under *tree*
    (the run's copy) are refused to the run (``benchsmith_directcov``)."""
    environ = {"MALLOC_ARENA_MAX": "4", **repo.environ}
    if repo.implementation == "pure-python":
        environ["BENCHSMITH_PURE_PYTHON"] = str((tree or repo.tree) / repo.import_root)
    if runs_its_own_pytest(repo):
        environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    return environ


def addopts_plugins(repo: Repository) -> list[str]:
    """The plugins *repo*'s own ``addopts`` load (``-p pytester``), where the run can import them: its tests need
    their fixtures and ini options (pytest's suite uses the pytester fixture, and its ``filterwarnings = error``
    makes the unregistered ``pytester_example_dir`` option an error). The rest of addopts stays out (coverage,
    xdist, doctest collection); so does a load whose module is nowhere here, which would stop the session."""
    options = addopts(repo.tree)
    plugins = []
    for number, option in enumerate(options):
        if option == "-p" and number + 1 < len(options):
            name = options[number + 1]
        elif option.startswith("-p") and len(option) > 2 and not option.startswith("-p="):
            name = option[2:]
        else:
            continue
        if name.startswith("no:") or _importable_plugin(repo, name):
            plugins.append(name)
    return list(dict.fromkeys(plugins))


def addopts(tree: Path) -> list[str]:
    """The ``addopts`` of the configuration file pytest would read in *tree* (the first of :data:`PYTEST_CONFIGS`
    with a pytest section), split as a shell would; [] when there is none or it does not parse."""

    for name in PYTEST_CONFIGS:
        path = tree / name
        if not _has_pytest_section(path):
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        try:
            if name == "pyproject.toml":
                value = tomllib.loads(text).get("tool", {}).get("pytest", {}).get("ini_options", {}).get("addopts", "")
                return [str(v) for v in value] if isinstance(value, list) else shlex.split(str(value))
            parser = configparser.ConfigParser(interpolation=None, strict=False)
            parser.read_string(text)
        except (ValueError, tomllib.TOMLDecodeError, configparser.Error):
            return []
        section = next((s for s in ("pytest", "tool:pytest") if parser.has_section(s)), "")
        try:
            return shlex.split(parser.get(section, "addopts", fallback="")) if section else []
        except ValueError:
            return []
    return []


def _importable_plugin(repo: Repository, name: str) -> bool:
    """Whether the module *name* of a ``-p`` is one pytest's own (``_pytest.<name>``), or a module of the tree or of
    the environment."""
    top = name.split(".", 1)[0]
    sites = list(Path(repo.python).parent.parent.glob("lib/python*/site-packages"))
    roots = [repo.tree / repo.import_root, repo.tree, *sites]
    if "." not in name and any((root / "_pytest" / f"{name}.py").is_file() for root in roots):
        return True
    return any(
        (root / top).is_dir() or (root / f"{top}.py").is_file() or any(root.glob(f"{top}.*.so")) for root in roots
    )


def trusted_command(
    repo: Repository, copy: Path, node_ids: list[str] | None, coverage: bool = False, targets: list[str] | None = None
) -> tuple[list[str], dict[str, str]]:
    """The pytest command and environment of a build's trusted run in *copy*: all tests (of *targets*, default the
    tree's test folder), or exactly *node_ids*."""
    config = None
    if not has_own_config(copy):
        config = copy / OWN_CONFIG
        config.write_text("[pytest]\n")
    env = {
        "PYTHONPATH": os.pathsep.join([str(plugin_dir()), str(copy / repo.import_root)]),
        "PYTHONDONTWRITEBYTECODE": "1",
        **installed_as_in_tox(repo, copy),
        **pytest_environ(repo, copy),
    }
    if coverage:
        env["BENCHSMITH_DIRECTCOV"] = "1"
    # A module that cannot be collected (a git submodule a source archive leaves out, a conftest-less import) must
    # not stop the others: pytest interrupts the whole session on a collection error unless told to go on.
    argv = pytest_argv(repo, copy, config) + ["--continue-on-collection-errors"]
    if node_ids is None:
        argv += targets if targets is not None else default_targets(copy)
    else:  # their files on the command line, the exact ids selected by the plugin
        selection = copy / ".benchsmith-select"
        selection.write_text("\n".join(node_ids) + "\n", encoding="utf-8")
        env["BENCHSMITH_SELECT"] = str(selection)
        argv += sorted({node.split("::", 1)[0] for node in node_ids})
    return argv, env


def run_reporting(
    argv: list[str],
    cwd: Path,
    slot: int,
    limits: sandbox.Limits,
    log_path: Path,
    env: dict[str, str],
    jail: sandbox.Jail | None = None,
    lane: int = 0,
    stall_seconds: float | None = None,
    complete_lines_only: bool = False,
    report_limit: int = REPORT_LIMIT,
    log_limit: int = streams.LOG_BYTES,
    started_services: tuple[Service, ...] = (),
) -> tuple[sandbox.ProcessExit, PluginReport]:
    """Run *argv* sandboxed with the write end of a pipe as ``BENCHSMITH_REPORT_FD``; what came through it, parsed.

    Its stdout and stderr come through another pipe into a :class:`streams.BoundedLog` at *log_path* (at most
    *log_limit* bytes of it kept); at most *report_limit* bytes of the report are held. Reading stops when the process
    ends (a child it left behind and that holds a pipe does not keep the run going: it is killed with the rest) or at
    the wall-clock limit, or (with *stall_seconds*) once nothing has come through the report pipe for that long: a
    hung test. Either way the outcome says it timed out.

    *started_services* are started inside the run, fresh, before *argv* (:mod:`benchsmith.runners.sandbox.services`):
    without a jail their data goes to a folder made for this run alone and removed after it.
    """
    started = time.monotonic()
    with _services_started(started_services, argv, env, jail, slot, lane) as (argv, env, jail):
        read_end, write_end = os.pipe()
        output_read, output_write = os.pipe()
        env = {**env, "BENCHSMITH_REPORT_FD": str(write_end)}
        output = streams.BoundedLog(log_path, log_limit)
        try:
            try:
                process = sandbox.start(
                    argv,
                    cwd,
                    slot,
                    limits,
                    log_path,
                    env=env,
                    jail=jail,
                    lane=lane,
                    stdin=subprocess.DEVNULL,
                    stdout=output_write,
                    stderr=output_write,
                    pass_fds=(write_end,),
                )
            finally:
                os.close(write_end)  # only the test process holds them now: its end is the pipes' end
                os.close(output_write)
            try:
                data, timed_out, lingered = _read_until_exit(
                    read_end, output_read, output, process, started + limits.wall_seconds, report_limit, stall_seconds
                )
            finally:
                sandbox.stop(process, slot)
            sandbox.check_not_terminating()  # a run the harness's stop killed gave no outcome
            if lingered:
                output.write(
                    f"\nbenchsmith: the process had not exited {FINISHED_GRACE_SECONDS:.0f} s after pytest's session "
                    f"finished (threads the suite left running): stopped\n".encode()
                )
        finally:
            os.close(read_end)
            os.close(output_read)
            output.close()
        seconds = time.monotonic() - started
        report = parse_report(data, complete_lines_only)
        reached = str(process.reached)
        if lingered and report.finished is not None:  # it ended as pytest said it did; only its exit was cut short
            return sandbox.ProcessExit(report.finished, False, seconds, reached), report
        return sandbox.ProcessExit(None if timed_out else process.returncode, timed_out, seconds, reached), report


@contextmanager
def _services_started(
    wanted: tuple[Service, ...], argv: list[str], env: dict[str, str], jail: sandbox.Jail | None, slot: int, lane: int
) -> Iterator[tuple[list[str], dict[str, str], sandbox.Jail | None]]:
    """*argv* behind the service launcher, its environment and its jail (reading the services' data templates too),
    when the run wants services; without a jail their data goes to a folder made for this run alone (the sandbox
    uid's), removed after it."""
    if not wanted:
        yield argv, env, jail
        return
    if not sandbox.isolation()["network_namespace"]:
        raise BenchsmithError(
            f"{', '.join(services.describe(wanted))}: a run's services need a network namespace of the run's own "
            "(unshare -n), which this machine does not allow"
        )
    argv, extra, templates = services.launch(wanted, argv, plugin_dir() / SERVICE_LAUNCHER)
    env = {**env, **extra}
    if jail is not None:  # their data goes to the jail's private /tmp, which goes with it
        yield argv, env, dataclasses.replace(jail, read_only=(*jail.read_only, *templates))
        return
    # removed after the run, or, if the harness is stopped first (SIGTERM, Ctrl-C), before it exits
    with sandbox.run_folder("benchsmith-services-") as data:
        sandbox.give_to_sandbox(data, slot, lane)
        yield argv, {**env, "BENCHSMITH_SERVICES_ROOT": str(data)}, jail


_AFTER_EXIT_READS = 256  # chunks read from each pipe once the process ended: a child left behind may keep writing
# A trusted run whose session finished (the plugin's last record) but whose process has not exited this long after:
# non-daemon threads a suite left behind hold the interpreter's exit for good (pykka's actors made every build wait
# the whole stall, 300 s). It is stopped; its report is whole.
FINISHED_GRACE_SECONDS = 30.0
_FINISHED = b'\n{"finished": '


def _read_until_exit(
    fd: int,
    output_fd: int,
    output: streams.BoundedLog,
    process: subprocess.Popen,
    deadline: float,
    limit: int,
    stall_seconds: float | None = None,
) -> tuple[bytes, bool, bool]:
    """Everything written to *fd* until *process* ends (at most *limit* bytes; beyond it a NUL, which no report of
    ours holds), what came through *output_fd* fed to *output*; whether the deadline (or, once a first report
    byte came, *stall_seconds* without another) came first; and whether, in a run with *stall_seconds* (trusted),
    the process outlived its finished session by :data:`FINISHED_GRACE_SECONDS`. Collecting a large suite may take
    long: the stall clock starts at the first report."""
    final_deadline = deadline
    report = bytearray()
    size = 0
    finished = False
    open_fds = {fd, output_fd}  # until every writer closed it; the process may still run (it can close its end itself)
    for each in open_fds:
        os.set_blocking(each, False)

    def received() -> bytes:
        return bytes(report) + (b"\0" if size > limit else b"")

    def drain(each: int, chunks: int | None) -> None:
        nonlocal size, deadline, finished
        while chunks is None or chunks > 0:
            try:
                chunk = os.read(each, 1 << 16)
            except BlockingIOError:
                return
            if not chunk:
                open_fds.discard(each)
                return
            if each == output_fd:
                output.write(chunk)
            else:
                size += len(chunk)
                if stall_seconds is not None and not finished:
                    deadline = min(final_deadline, time.monotonic() + stall_seconds)
                if size <= limit:
                    report.extend(chunk)
                    if stall_seconds is not None and not finished and _FINISHED in b"\n" + report[-256:]:
                        finished = True
                        deadline = min(final_deadline, time.monotonic() + FINISHED_GRACE_SECONDS)
            if chunks is not None:
                chunks -= 1

    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return received(), not finished, finished
        if not open_fds:
            try:
                process.wait(timeout=remaining)
            except subprocess.TimeoutExpired:
                return received(), not finished, finished
            return received(), False, False
        readable, _, _ = select.select(sorted(open_fds), [], [], min(remaining, 0.05))
        exited = process.poll() is not None
        for each in sorted(open_fds if exited else readable):
            drain(each, _AFTER_EXIT_READS if exited else 16)
        if exited:
            return received(), False, False


def parse_report(data: bytes, complete_lines_only: bool = False) -> PluginReport:
    """The plugin's JSON lines; any other byte makes the whole report malformed (it is not ours then).

    With *complete_lines_only* (a trusted run whose process died while writing), a last line cut off is dropped
    instead of making the report malformed."""
    if complete_lines_only and not data.endswith(b"\n"):
        data = data[: data.rfind(b"\n") + 1]
    if not data:
        return PluginReport()
    if not data.endswith(b"\n"):
        return PluginReport(malformed="the last line is cut off")
    tests: list[tuple[str, str]] = []
    calls: dict[str, list[tuple[str, str]]] = {}
    messages: dict[str, str] = {}
    collected: list[str] | None = None
    finished: int | None = None
    for number, line in enumerate(data.split(b"\n")[:-1], start=1):
        try:
            record = encodable(json.loads(line))
            if isinstance(record, dict) and set(record) == {"finished"}:
                if finished is not None or not isinstance(record["finished"], int):
                    raise TypeError("one exit status")
                finished = record["finished"]
                continue
            if isinstance(record, dict) and set(record) == {"collected"}:
                if (
                    collected is not None
                    or not isinstance(record["collected"], list)
                    or not all(isinstance(node, str) for node in record["collected"])
                ):
                    raise TypeError("one list of node ids")
                collected = record["collected"]
                continue
            node, outcome = record["nodeid"], record["outcome"]
            if not isinstance(node, str) or not isinstance(outcome, str):
                raise TypeError("node id and outcome must be strings")
            if "calls" in record:
                calls[node] = [(str(f), str(q)) for f, q in record["calls"]]
            if "message" in record:
                if not isinstance(record["message"], str):
                    raise TypeError("a message must be a string")
                messages.setdefault(node, record["message"])  # a node's first word: the plugin sends one
        except (ValueError, TypeError, KeyError, RecursionError) as exc:  # RecursionError: JSON nested deep
            return PluginReport(malformed=f"line {number} is not a test's report ({type(exc).__name__})")
        tests.append((node, outcome))
    return PluginReport(tests, calls, messages=messages, collected=collected, finished=finished)


def _has_pytest_section(path: Path) -> bool:
    if not path.is_file():
        return False
    text = path.read_text(encoding="utf-8", errors="replace")
    return path.name == "pytest.ini" or any(
        s in text for s in ("[tool.pytest.ini_options]", "[pytest]", "[tool:pytest]")
    )


def default_targets(copy: Path) -> list[str]:
    for name in ("tests", "test", "testing"):
        if (copy / name).is_dir():
            return [name]
    return []


@dataclass(frozen=True)
class MissingImport:
    module: str  # the module that could not be imported ("anyio", or "pkg.name" for a missing name)
    importer: str  # the file whose import failed, relative to the tree: "tests/conftest.py"
    through: str  # the conftest or test module pytest was loading when it failed ("" when the importer is one)
    error: str  # pytest's "E   ..." line, without the "E"


_LOADING = re.compile(r"ImportError while (?:loading conftest|importing test module) '([^']+)'")
_FRAME = re.compile(r"^(\S+\.py):\d+: in ")
_IMPORT_ERROR = re.compile(
    r"^E\s+(ModuleNotFoundError: No module named '([^']+)'|ImportError: cannot import name "
    r"'([^']+)' from '([^']+)'.*)$"
)


def missing_imports(log: str, tree: Path) -> list[MissingImport]:
    """The imports that failed while pytest collected (a conftest or a test module), from its output in *log*."""
    found: list[MissingImport] = []
    loading, importer = "", ""
    prefix = str(tree).rstrip("/") + "/"
    for line in log.splitlines():
        line = line.rstrip()
        if match := _LOADING.search(line):
            loading, importer = match[1].removeprefix(prefix), match[1].removeprefix(prefix)
        elif loading and (match := _FRAME.match(line)):
            frame = match[1].removeprefix(prefix)
            if not frame.startswith(("/", "..", "<")):  # a file of the tree, not of the environment
                importer = frame
        elif loading and (match := _IMPORT_ERROR.match(line)):
            module = match[2] or f"{match[4]}.{match[3]}"
            found.append(MissingImport(module, importer, "" if importer == loading else loading, match[1]))
            loading, importer = "", ""
    return list(dict.fromkeys(found))


def describe_missing(missing: list[MissingImport]) -> str:
    """``tests/conftest.py imports anyio, which the environment lacks; ...`` (one line)."""
    return "; ".join(
        f"{m.importer} imports {m.module}{f' (loaded from {m.through})' if m.through else ''}, "
        f"which the environment lacks ({m.error})"
        for m in missing
    )
