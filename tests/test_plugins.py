"""Plugins: a third-party distribution adds a benchmark and a model backend through entry points, and the command
line runs them (``generate``, ``eval``, ``report``) without a line of benchsmith naming them.

The plugin is a real distribution: built from its pyproject by the venv's pip into a target folder (a dist-info
with its entry_points.txt), which the commands' processes find on their path, as an installed package is found.
"""

import json
import os
import subprocess
import sys
import textwrap

import pytest

from benchsmith.core.errors import BenchsmithError
from benchsmith.core.registry import Registry
from tests.conftest import ROOT

PLUGIN = '''
"""A third-party benchmark and backend: questions whose answer is an arithmetic expression's value."""

import subprocess
import sys
import time
from dataclasses import dataclass

from benchsmith.core.verdict import Verdict
from benchsmith.benchmarks import Benchmark, GenerationItem, ReferenceCandidate
from benchsmith.generation.models.base import BackendBase, ChatResponse, Message
from benchsmith.generation.prompts.extraction import Extraction


@dataclass(frozen=True)
class Question:
    question_id: str
    topic: str
    expression: str
    answer: int


class Arithmetic(Benchmark):
    name = "plugin-arithmetic"
    record_type = Question
    strategies = ("ask",)
    report_columns = ("pass@k",)

    def instance_id(self, record):
        return record.question_id

    def project_of(self, record):
        return record.topic

    def generation_items(self, records, strategy, description, dataset):
        return [GenerationItem(q.question_id, 1, lambda answers, q=q: (Message("user", q.expression),),
                               lambda text: Extraction(text.strip(), True, "whole answer"), strategy)
                for q in records], ""

    def dedup_key(self, code):
        return "".join(code.split())

    def runners(self, options):
        return lambda record, slot, logs: Interpreter(record)

    def reference_candidates(self, records, mutants, seed):
        return [ReferenceCandidate(q.question_id, "gold", str(q.answer)) for q in records]


class Interpreter:
    def __init__(self, record):
        self.record = record

    def evaluate(self, code, name):
        started = time.monotonic()
        ran = subprocess.run([sys.executable, "-I", "-c", f"print({code})"], capture_output=True, text=True)
        right = ran.returncode == 0 and ran.stdout.strip() == str(self.record.answer)
        status = "plausible" if right else ("uncompilable" if "SyntaxError" in ran.stderr else "wrong")
        return Verdict(status, compiled=status != "uncompilable", tests_passed=int(right), tests_failed=int(not right),
                       seconds=time.monotonic() - started)

    def close(self):
        pass


class EchoBackend(BackendBase):
    """Answers with the question itself, then with it off by one: one right and one wrong sample."""

    name = "plugin-echo"

    def __init__(self, model=None):
        super().__init__()
        self.model = model or "echo-1"

    def complete(self, request):
        expression = request.messages[-1].content
        return ChatResponse([expression, expression + " + 1"][: request.n], self.model)


class NotABackend:
    pass
'''

PYPROJECT = """
[build-system]
requires = ["setuptools>=68"]
build-backend = "setuptools.build_meta"

[project]
name = "benchsmith-plugin-arithmetic"
version = "0.1.0"

[project.entry-points."benchsmith.benchmarks"]
plugin-arithmetic = "benchsmith_plugin_arithmetic:Arithmetic"

[project.entry-points."benchsmith.backends"]
plugin-echo = "benchsmith_plugin_arithmetic:EchoBackend"
not-a-backend = "benchsmith_plugin_arithmetic:NotABackend"

[tool.setuptools]
py-modules = ["benchsmith_plugin_arithmetic"]
"""

WRITE_DATASET = """
import sys
import pyarrow.parquet as pq
from benchsmith.core.schema import to_table
from benchsmith_plugin_arithmetic import Question
questions = [Question("q1", "addition", "2 + 3", 5), Question("q2", "addition", "40 + 2", 42),
             Question("q3", "multiplication", "6 * 7", 42)]
pq.write_table(to_table(questions, Question, benchmark="plugin-arithmetic"), sys.argv[1])
"""


@pytest.fixture(scope="module")
def plugin_site(tmp_path_factory):
    """The plugin distribution installed by the venv's pip into a folder of its own."""
    source = tmp_path_factory.mktemp("plugin-source")
    (source / "pyproject.toml").write_text(textwrap.dedent(PYPROJECT))
    (source / "benchsmith_plugin_arithmetic.py").write_text(textwrap.dedent(PLUGIN))
    site = tmp_path_factory.mktemp("plugin-site")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "--target",
            str(site),
            str(source),
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    assert (site / "benchsmith_plugin_arithmetic-0.1.0.dist-info" / "entry_points.txt").is_file()
    return site


def _run(site, *argv):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(ROOT)])}
    return subprocess.run([sys.executable, *argv], capture_output=True, text=True, cwd=ROOT, env=env)


def test_a_plugin_benchmark_and_backend_run_through_generate_eval_and_report(plugin_site, tmp_path):
    dataset, candidates, results = tmp_path / "questions.parquet", tmp_path / "c.jsonl", tmp_path / "r.parquet"
    assert _run(plugin_site, "-c", WRITE_DATASET, str(dataset)).returncode == 0
    cli = ("-m", "benchsmith.cli")
    generated = _run(
        plugin_site,
        *cli,
        "generate",
        "--dataset",
        str(dataset),
        "--strategy",
        "ask",
        "--backend",
        "plugin-echo",
        "--n",
        "2",
        "--out",
        str(candidates),
    )
    assert generated.returncode == 0, generated.stderr
    rows = [json.loads(line) for line in candidates.read_text().splitlines()]
    assert sorted((r["instance_id"], r["code"]) for r in rows)[:2] == [("q1", "2 + 3"), ("q1", "2 + 3 + 1")]
    assert {r["model"] for r in rows} == {"echo-1"}
    judged = _run(
        plugin_site, *cli, "eval", "--dataset", str(dataset), "--candidates", str(candidates), "--out", str(results)
    )
    assert judged.returncode == 0, judged.stderr
    assert "6 results (plausible 3, wrong 3, uncompilable 0, timeout 0, error 0)" in judged.stdout
    report = _run(plugin_site, *cli, "report", "--results", str(results), "--k", "1,2")
    assert report.returncode == 0, report.stderr
    assert "| project | instances | solved | pass@1 | pass@2 |\n" in report.stdout  # the plugin's columns
    assert "| addition | 2 | 2 | 50.00% | 100.00% |" in report.stdout
    assert "| multiplication | 1 | 1 | 50.00% | 100.00% |" in report.stdout


def test_a_plugin_is_listed_without_being_imported_and_checked_when_loaded(plugin_site):
    code = (
        "import sys; from benchsmith.generation.models import BACKENDS; from benchsmith import benchmarks; "
        "print(BACKENDS.names(), 'plugin-arithmetic' in benchmarks.known(), "
        "'benchsmith_plugin_arithmetic' in sys.modules)\n"
        "try:\n    BACKENDS.create('not-a-backend')\nexcept Exception as exc:\n    print(exc)"
    )
    listed = _run(plugin_site, "-c", code)
    assert listed.returncode == 0, listed.stderr
    first, second = listed.stdout.splitlines()
    assert first == "['openai', 'replay', 'scripted', 'template', 'not-a-backend', 'plugin-echo'] True False"
    assert second.startswith(
        "model backend 'not-a-backend': benchsmith_plugin_arithmetic.NotABackend is not a "
        "subclass of benchsmith.generation.models.base.BackendBase"
    )
    misspelt = _run(
        plugin_site,
        "-m",
        "benchsmith.cli",
        "generate",
        "--dataset",
        "x",
        "--strategy",
        "ask",
        "--backend",
        "plugin-ecko",
        "--out",
        "y",
    )
    assert misspelt.returncode == 2 and "invalid choice: 'plugin-ecko'" in misspelt.stderr


def test_the_registry_suggests_the_name_meant_and_keeps_names_unique():
    registry: Registry = Registry("widget", "benchsmith.tests-no-such-group", base=BenchsmithError)
    registry.add("sprocket", "benchsmith.core.errors:PatchError", "a patch error")
    registry.add("spring", "benchsmith.core.errors:SourceUnavailable")
    with pytest.raises(
        BenchsmithError,
        match=r"unknown widget 'sprockett' \(choose from sprocket, spring\); "
        r"did you mean 'sprocket'\?",
    ):
        registry.load("sprockett")
    with pytest.raises(BenchsmithError, match="widget 'sprocket' is registered already"):
        registry.add("sprocket", "benchsmith.core.errors:JavaParseError")
    assert registry.load("sprocket").__name__ == "PatchError"
    registry.add("wrong", "benchsmith.core.registry:Registry")
    with pytest.raises(BenchsmithError, match="is not a subclass of benchsmith.core.errors.BenchsmithError"):
        registry.load("wrong")
