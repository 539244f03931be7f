"""A suite that needs Redis on localhost, written here: built without its service and with it, judged by eval.

The repository's CI declares ``services: redis`` (a GitHub Actions workflow), its conftest connects to
127.0.0.1:6379 with a small RESP client of its own, and one test (``test_fresh_counter``) increments a key it never
resets: it passes only on a server nobody wrote into before, so every run that passes it (the suite's, the ground
truth's, each candidate's) had a fresh server of its own. Needs Debian's redis-server (the Makefile installs it).
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest

from benchsmith.core.schema import ClassBenchTask, Result, read_records
from benchsmith.runners.python.class_runner import reference_solution
from benchsmith.runners.sandbox.jail import living_processes
from tests.helpers.cli import reaped, run_cli
from tests.helpers.git_history import committed

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs Debian's redis-server (make services)"),
]

WORKFLOW = """\
name: tests
on: [push]
jobs:
  test:
    runs-on: ubuntu-latest
    services:
      redis:
        image: redis:7-alpine
        ports:
          - 6379:6379
    steps:
      - uses: actions/checkout@v4
      - run: pytest
"""

RESP = '''\
"""A small client of Redis's protocol (RESP2)."""

import socket


def encode(args) -> bytes:
    out = [b"*%d\\r\\n" % len(args)]
    for arg in args:
        data = arg if isinstance(arg, bytes) else str(arg).encode()
        out.append(b"$%d\\r\\n%s\\r\\n" % (len(data), data))
    return b"".join(out)


def read_reply(stream):
    line = stream.readline()
    kind, rest = line[:1], line[1:-2]
    if kind == b"+":
        return rest.decode()
    if kind == b"-":
        raise RuntimeError(rest.decode())
    if kind == b":":
        return int(rest)
    if kind == b"$":
        size = int(rest)
        if size < 0:
            return None
        data = stream.read(size + 2)
        return data[:-2]
    if kind == b"*":
        return [read_reply(stream) for _ in range(int(rest))]
    raise RuntimeError(f"unexpected reply {line!r}")


class RespClient:
    """One connection to a Redis server."""

    def __init__(self, host="127.0.0.1", port=6379):
        self.sock = socket.create_connection((host, port), timeout=5)
        self.stream = self.sock.makefile("rb")

    def command(self, *args):
        self.sock.sendall(encode(args))
        return read_reply(self.stream)

    def close(self):
        self.stream.close()
        self.sock.close()
'''

COUNTER = '''\
"""Counters kept in Redis."""

from kvstore.resp import RespClient


class Counter:
    """A named counter."""

    def __init__(self, name, client=None):
        self.name = name
        self.client = client if client is not None else RespClient()

    def incr(self, by=1):
        return int(self.client.command("INCRBY", self.name, by))

    def value(self):
        reply = self.client.command("GET", self.name)
        return 0 if reply is None else int(reply)

    def reset(self):
        self.client.command("DEL", self.name)
'''

CONFTEST = """\
import pytest

from kvstore.resp import RespClient


@pytest.fixture
def client():
    connection = RespClient()
    yield connection
    connection.close()
"""

TESTS = """\
from kvstore.counter import Counter
from kvstore.resp import encode


def test_encode():
    assert encode(["GET", "k"]) == b"*2\\r\\n$3\\r\\nGET\\r\\n$1\\r\\nk\\r\\n"


def test_incr(client):
    counter = Counter("hits", client)
    counter.reset()
    assert counter.incr() == 1
    assert counter.incr(2) == 3


def test_value(client):
    counter = Counter("seen", client)
    counter.reset()
    counter.incr(5)
    assert counter.value() == 5


def test_fresh_counter(client):
    # never reset: 1 only on a server no earlier run wrote into
    assert Counter("fresh", client).incr() == 1


def test_roundtrip(client):
    assert client.command("SET", "k", "v") == "OK"
    assert client.command("GET", "k") == b"v"
"""


REDIS_REPO = {
    "pyproject.toml": '[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n\n'
    '[project]\nname = "kvstore"\nversion = "0.1"\nrequires-python = ">=3.9"\n\n'
    '[tool.setuptools.packages.find]\nwhere = ["src"]\n',
    ".github/workflows/tests.yml": WORKFLOW,
    "src/kvstore/__init__.py": "",
    "src/kvstore/resp.py": RESP,
    "src/kvstore/counter.py": COUNTER,
    "tests/conftest.py": CONFTEST,
    "tests/test_counter.py": TESTS,
}


def write_redis_repo(root: Path) -> Path:
    for name, text in REDIS_REPO.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    root.chmod(0o755)
    return root


@pytest.fixture(scope="module")
def redis_repo(tmp_path_factory) -> Path:
    return write_redis_repo(tmp_path_factory.mktemp("services") / "kvstore")


def _card(out: Path) -> dict:
    return json.loads(out.with_suffix(".card.json").read_text())


def _candidates_file(task: ClassBenchTask, candidates: dict[str, str], tmp_path: Path) -> Path:
    path = tmp_path / "candidates.jsonl"
    path.write_text(
        "".join(
            json.dumps({"instance_id": task.task_id, "candidate_id": c, "code": code}) + "\n"
            for c, code in candidates.items()
        )
    )
    return path


def _judged(dataset: Path, task: ClassBenchTask, candidates: dict[str, str], tmp_path: Path) -> dict[str, Result]:
    """*candidates* (id -> code) of *task* judged by ``eval`` on *dataset*: their results, by id."""
    path = _candidates_file(task, candidates, tmp_path)
    results_path = tmp_path / "results.parquet"
    completed = run_cli(
        "eval", "--dataset", str(dataset), "--candidates", str(path), "--out", str(results_path), "--timeout", "60"
    )
    assert completed.returncode == 0, completed.stderr
    return {r.candidate_id: r for r in read_records(results_path, Result)}


def test_without_services_the_tests_error_and_the_card_says_why(redis_repo, tmp_path):
    out = tmp_path / "kvstore.parquet"
    completed = run_cli("classbench", "build", "--repo", str(redis_repo), "--out", str(out))
    assert completed.returncode == 0, completed.stderr
    card = _card(out)
    assert card["test_suite"] == {"passed": 1, "error": 4}
    assert card["services"]["detected"] == [
        "redis on 127.0.0.1:6379 (.github/workflows/tests.yml: jobs.test.services.redis (redis:7-alpine))"
    ]
    assert card["services"]["started"] == []
    assert card["services"]["not_started"] == "not asked (--services starts them)"
    assert card["tasks"] == 0
    assert "Not started: not asked" in out.with_suffix(".card.md").read_text()


def test_with_services_tasks_are_built_and_judged_each_run_on_a_fresh_server(redis_repo, tmp_path):
    out = tmp_path / "kvstore.parquet"
    completed = run_cli("classbench", "build", "--repo", str(redis_repo), "--services", "--out", str(out))
    assert completed.returncode == 0, completed.stderr
    card = _card(out)
    # test_fresh_counter passed in the suite's run, and again in each later run of the build (the class removed,
    # the ground truth, the ground truth once more, the empty class): each had a server of its own
    assert card["test_suite"] == {"passed": 5}
    assert card["services"]["started"] == card["services"]["detected"]
    tasks = {t.class_name: t for t in read_records(out, ClassBenchTask)}
    assert "Counter" in tasks, card["rejections"]
    counter = tasks["Counter"]
    assert "tests/test_counter.py::test_fresh_counter" in counter.test_directives
    assert [(s.kind, s.port) for s in counter.environment.services] == [("redis", 6379)]
    gold = reference_solution(counter)
    candidates = {
        # Writes into its run's server at import: its own test_fresh_counter sees 42 and fails; nothing it wrote is
        # there for the runs after it
        "poisons": "from kvstore.resp import RespClient as _R\n_R().command('SET', 'fresh', 41)\n\n" + gold,
        "gold": gold,
        "gold-renamed": gold.replace("reply", "answer"),
        "empty": "class Counter:\n    pass\n",
    }
    results = _judged(out, counter, candidates, tmp_path)
    assert {c: r.status for c, r in results.items()} == {
        "poisons": "wrong",
        "gold": "plausible",
        "gold-renamed": "plausible",
        "empty": "wrong",
    }
    assert "test_fresh_counter" in results["poisons"].reason


def test_imported_tasks_carry_the_services_their_repository_s_tests_expect(tmp_path):
    """A published task (python_data.json's shape) of the Redis repository, supplied as a git history: without
    --services the card names the Redis its CI declares and none of the directives passes on the repository's own code
    (they error for want of a server), so the task cannot be built; with it, the task records the service, its
    directives pass in the check on the original, and eval starts the server for every candidate's run."""
    commit = committed(tmp_path / "repos" / "acme__kvstore", REDIS_REPO)
    tests = "tests/test_counter.py"
    directives = [f"{tests}::test_incr", f"{tests}::test_value", f"{tests}::test_fresh_counter"]
    entry = {
        "task_id": "acme__kvstore-1_Counter",
        "class_name": "Counter",
        "file": "acme__kvstore-1/src/kvstore/counter.py",
        "sketchy_description": "A named counter.",
        "detailed_description": "A named counter kept in Redis.",
        "repo_metadata": {
            "commit_id": commit,
            "issue_id": "acme__kvstore-1",
            "setup_details": {"repo": "acme/kvstore", "instance_id": "acme__kvstore-1", "base_commit": commit},
        },
        "evaluation_metadata": {"test_directives": directives},
        "ground_truth_class_body": COUNTER[COUNTER.index("class Counter") :],
    }
    source = tmp_path / "python_data.json"
    source.write_text(json.dumps([entry]))
    declared = "redis on 127.0.0.1:6379 (.github/workflows/tests.yml: jobs.test.services.redis (redis:7-alpine))"
    task_id = "acme__kvstore::src/kvstore/counter.py::Counter"

    plain = tmp_path / "plain.parquet"
    completed = run_cli(
        "classbench", "import", "--from", str(source), "--repos", str(tmp_path / "repos"), "--out", str(plain)
    )
    assert completed.returncode == 0, completed.stderr
    card = _card(plain)
    assert card["services"] == {
        f"acme__kvstore@{commit[:12]}": {
            "detected": [declared],
            "started": [],
            "not_started": "not asked (--services starts them)",
        }
    }
    assert card["tasks_not_buildable"][task_id].startswith("none of its 3 directives passes"), card
    assert card["directives_dropped_on_the_original"][task_id]["outcomes"] == {"error": 3}
    assert read_records(plain, ClassBenchTask)[0].environment.services == []

    out = tmp_path / "published.parquet"
    completed = run_cli(
        "classbench",
        "import",
        "--from",
        str(source),
        "--repos",
        str(tmp_path / "repos"),
        "--services",
        "--out",
        str(out),
    )
    assert completed.returncode == 0, completed.stderr
    assert f"started in every run: {declared}" in completed.stdout
    card = _card(out)
    assert card["services"][f"acme__kvstore@{commit[:12]}"]["started"] == [declared]
    assert card["tasks_not_buildable"] == {} and card["directives_dropped_on_the_original"] == {}
    assert "Started, fresh, in every run's own network namespace" in out.with_suffix(".card.md").read_text()
    (counter,) = read_records(out, ClassBenchTask)
    assert counter.test_directives == directives
    assert [(s.kind, s.port) for s in counter.environment.services] == [("redis", 6379)]
    candidates = {"gold": reference_solution(counter), "empty": "class Counter:\n    pass\n"}
    verdicts = {c: (r.status, r.reason) for c, r in _judged(out, counter, candidates, tmp_path).items()}
    assert verdicts["gold"][0] == "plausible", verdicts
    assert verdicts["empty"][0] == "wrong", verdicts


WAITS = """\
import time

from kvstore.counter import Counter


def test_incr_then_wait(client):
    Counter("waited", client).incr()
    time.sleep(600)  # the harness is stopped while this test runs
"""


def _ancestors(pid: int) -> list[int]:
    chain = []
    while pid > 1:
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            return chain
        pid = int(next(line.split()[1] for line in status.splitlines() if line.startswith("PPid:")))
        chain.append(pid)
    return chain


def _process_of(harness: subprocess.Popen, wanted: Callable[[str], bool]) -> int:
    """A process *harness* started (found by its ancestry, not by name alone: other builds on this machine may run
    the same programs) for which *wanted* (given its /proc folder) holds; once there is one. Fails if the harness
    ends first."""
    while harness.poll() is None:
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                if wanted(f"/proc/{entry}") and harness.pid in _ancestors(int(entry)):
                    return int(entry)
            except OSError:
                continue
        try:
            harness.wait(timeout=0.2)
        except subprocess.TimeoutExpired:
            pass
    raise AssertionError(f"the harness ended before the process looked for: {harness.communicate()[1][-2000:]}")


def _uid(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(next(line.split()[1] for line in status.splitlines() if line.startswith("Uid:")))


def _server_of(harness: subprocess.Popen) -> tuple[int, Path]:
    """The uid of the redis-server a run of *harness* started and the services folder the harness made for the run:
    the server runs in its own folder, in the launcher's, in the harness's (read from its working directory, not its
    environment: redis rewrites that memory with its process title)."""
    server = _process_of(harness, lambda proc: Path(proc, "comm").read_text().strip() == "redis-server")
    where = os.readlink(f"/proc/{server}/cwd")
    folder = Path(where)
    while folder.parent != Path(tempfile.gettempdir()) and folder != folder.parent:
        folder = folder.parent
    assert folder.name.startswith("benchsmith-services-"), where
    return _uid(server), folder


@pytest.mark.parametrize("number", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "Ctrl-C"])
def test_a_harness_stopped_mid_run_leaves_no_server_and_no_folder_behind(number, tmp_path):
    """A build whose trusted suite run has Redis going (a test that waits) is sent SIGTERM, or SIGINT as Ctrl-C
    sends it: it exits saying so, and nothing of the run is left: no process of the run's sandbox uid (the server,
    pytest, the launcher), no services folder."""
    repo = write_redis_repo(tmp_path / "kvstore")
    (repo / "tests" / "test_waits.py").write_text(WAITS)
    out = tmp_path / "kvstore.parquet"
    harness = subprocess.Popen(
        [sys.executable, "-m", "benchsmith.cli", "classbench", "build", "--repo", str(repo), "--services"]
        + ["--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # as a terminal's foreground job has it: a suite started in the background (`make test &`, nohup) inherits
        # SIGINT ignored, and benchsmith rightly keeps a signal ignored from the start (it then built to the end)
        preexec_fn=functools.partial(signal.signal, signal.SIGINT, signal.SIG_DFL),
    )
    with reaped(harness):
        uid, folder = _server_of(harness)
        assert folder.is_dir() and living_processes(uid)
        harness.send_signal(number)
        _, stderr = harness.communicate(timeout=600)
    if number == signal.SIGTERM:
        assert harness.returncode == 128 + signal.SIGTERM, stderr[-2000:]
        assert "benchsmith: stopped by SIGTERM" in stderr
    else:
        assert harness.returncode == 130, stderr[-2000:]
        assert "benchsmith: interrupted" in stderr
    assert living_processes(uid) == []
    assert not folder.exists()
    assert not out.exists()


def test_an_eval_stopped_mid_run_leaves_no_run_behind_and_records_no_verdict_of_it(redis_repo, tmp_path):
    """eval judges in worker threads, each run jailed with its own Redis: sent SIGTERM while a candidate's run
    sleeps at import, it kills that run, records no verdict for it (a resumed eval judges it) and exits saying
    so, with no process of the run's uid left."""
    out = tmp_path / "kvstore.parquet"
    completed = run_cli("classbench", "build", "--repo", str(redis_repo), "--services", "--out", str(out))
    assert completed.returncode == 0, completed.stderr
    counter = next(t for t in read_records(out, ClassBenchTask) if t.class_name == "Counter")
    candidates = {"sleeps": "import time as _t\n\n_t.sleep(600)\n\n\n" + reference_solution(counter)}
    path = _candidates_file(counter, candidates, tmp_path)
    results = tmp_path / "results.parquet"
    harness = subprocess.Popen(
        [sys.executable, "-m", "benchsmith.cli", "eval", "--dataset", str(out), "--candidates", str(path)]
        + ["--out", str(results), "--timeout", "300"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    with reaped(harness):
        # the candidate's pytest, asleep in its import (no run of the harness's own sleeps)
        asleep = _process_of(harness, lambda proc: Path(proc, "wchan").read_text() == "hrtimer_nanosleep")
        uid = _uid(asleep)
        harness.send_signal(signal.SIGTERM)
        _, stderr = harness.communicate(timeout=600)
    assert harness.returncode == 128 + signal.SIGTERM, stderr[-2000:]
    assert "benchsmith: stopped by SIGTERM" in stderr
    assert living_processes(uid) == []
    assert not results.exists()
    journal = results.with_name(results.name + ".journal.jsonl")
    recorded = [json.loads(line) for line in journal.read_text().splitlines()] if journal.exists() else []
    assert [r for r in recorded if r["candidate_id"] == "sleeps"] == []
