"""The repository tools and RRR on a Java classbench task (the Maven repository of tests/helpers/java_repo.py): golden
tool outputs, the removed class and its directive tests out of every tool's reach, and an agent end to end."""

import json
import os
import shutil
from pathlib import Path

import pytest

from benchsmith.benchmarks.classbench.java import visible_files
from benchsmith.core.schema import ClassBenchTask, Result, read_records
from benchsmith.generation.agents.java.tools import java_toolbox, jdk_types, undefined_types
from benchsmith.runners.java.jvm import release_api
from tests.helpers.cli import run_cli

pytestmark = [pytest.mark.java, pytest.mark.slow]
GOLDEN = Path(__file__).parent.parent.parent / "golden" / "agents"
ATTEMPT = """package org.example.geometry;

import java.util.Locale;

public class Rectangle extends Polygon {
    private final List<Double> sides;
    private final Objects helper;

    public double area() {
        return Units.round(sides.get(0) * sides.get(1));
    }
}
"""
CALLS = [
    ("get_related_snippets", {}),
    ("get_imports", {}),
    ("get_class_info", {"class_name": "Polygon"}),
    ("get_class_info", {"class_name": "Square"}),
    ("get_class_info", {"class_name": "Rectangle"}),
    ("get_signature", {"class_name": "Units", "method_name": "format"}),
    ("get_signature", {"class_name": None, "method_name": "area"}),
    ("get_method_body", {"class_name": "Shape", "method_name": "describe"}),
    ("get_method_body", {"class_name": "Rectangle", "method_name": "scale"}),
    ("get_relevant_code", {"search_string": "total area of the shapes"}),
]


@pytest.fixture(scope="module")
def rectangle(java_geometry_dataset) -> ClassBenchTask:
    return next(t for t in read_records(java_geometry_dataset, ClassBenchTask) if t.class_name == "Rectangle")


def test_java_tools_match_golden(rectangle):
    tools = java_toolbox(
        rectangle,
        visible_files(rectangle),
        jdk_api=release_api(),
        description="An axis-aligned rectangle: its area, perimeter, sides and scaling.",
    )
    tools.attempt(ATTEMPT)
    text = "\n".join(
        f"===== {name} {arguments}\n{tools.call(name, arguments, thought='the area of a rectangle')}\n"
        for name, arguments in CALLS
    )
    path = GOLDEN / "java-geometry-tools.txt"
    if os.environ.get("UPDATE_GOLDEN"):
        path.write_text(text)
    assert text == path.read_text()


def test_ground_truth_and_directive_tests_are_unreachable(rectangle):
    files = visible_files(rectangle)
    assert rectangle.file_path not in files and "src/test/java/org/example/geometry/RectangleTest.java" not in files
    assert "src/main/java/org/example/geometry/Square.java" in files
    visible = "\n".join(files.values())
    secret = sorted(
        {
            line.strip()
            for line in rectangle.ground_truth_class.splitlines()
            if len(line.strip()) >= 12 and line.strip() not in visible and not line.strip().startswith("import ")
        }
    )
    assert 'throw new IllegalArgumentException("negative side");' in secret
    tools = java_toolbox(rectangle, files, jdk_api=release_api())
    tools.attempt(rectangle.ground_truth_class)
    queries = [rectangle.ground_truth_class, *secret]
    calls = [("get_related_snippets", {"query": q}) for q in queries] + [
        ("get_relevant_code", {"search_string": q}) for q in queries
    ]
    calls += [
        (tool, {"class_name": c, "method_name": m})
        for tool in ("get_signature", "get_method_body")
        for c in ("Rectangle", None)
        for m in ("area", "scale", "perimeter", "sides", "equals", "hashCode")
    ]
    calls += [
        ("get_class_info", {"class_name": c})
        for c in ("Rectangle", "Square", "Polygon", "org.example.geometry.Rectangle")
    ]
    calls += [("get_imports", {})]
    for name, arguments in calls:
        answer = tools.call(name, arguments, thought=rectangle.ground_truth_class)
        leaked = [line for line in secret if line in answer]
        assert not leaked, (name, arguments, leaked)
        assert "RectangleTest" not in answer and "areaMultipliesSides" not in answer
    without = visible_files(rectangle, relatives=False)
    assert set(files) - set(without) == {
        "src/main/java/org/example/geometry/Circle.java",
        "src/main/java/org/example/geometry/Square.java",
    }


def test_undefined_types_skip_java_lang_the_package_and_declarations():
    code = "package p;\nimport java.util.Map;\nclass A<T extends Comparable<T>> { Map<String, List<T>> m; B b; Integer i; Helper h; }"
    assert undefined_types(code, "p", {"p.B", "q.Helper"}, jdk_types(release_api())) == ["List", "Helper"]


def test_rrr_on_a_java_task_end_to_end(java_geometry_dataset, tmp_path):
    dataset = tmp_path / "geometry.parquet"
    shutil.copy(java_geometry_dataset, dataset)
    assert run_cli("describe", "--dataset", str(dataset), "--backend", "template").returncode == 0
    script, out, results = tmp_path / "script.jsonl", tmp_path / "rrr.jsonl", tmp_path / "rrr.parquet"
    completed = run_cli("agent", "demo-script", "--dataset", str(dataset), "--out", str(script))
    assert completed.returncode == 0, completed.stderr[-2000:]
    completed = run_cli(
        "agent",
        "run",
        "--agent",
        "rrr",
        "--dataset",
        str(dataset),
        "--backend",
        "scripted",
        "--script",
        str(script),
        "--max-calls",
        "5",
        "--out",
        str(out),
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    transcripts = [json.loads(line) for line in (tmp_path / "rrr.transcripts.jsonl").read_text().splitlines()]
    assert len(transcripts) == 2
    for transcript in transcripts:
        verdicts = [e for e in transcript["events"] if e["kind"] == "verdict"]
        assert [v["passed"] for v in verdicts] == [False, True]  # the empty class does not compile; the gold passes
        tools = [e for e in transcript["events"] if e["kind"] == "tool"]
        assert tools and all(e["output"].strip() for e in tools)
    completed = run_cli("eval", "--dataset", str(dataset), "--candidates", str(out), "--out", str(results))
    assert completed.returncode == 0, completed.stderr[-3000:]
    assert sorted((r.iteration, r.status) for r in read_records(results, Result)) == [
        (1, "uncompilable"),
        (1, "uncompilable"),
        (2, "plausible"),
        (2, "plausible"),
    ]


def test_rrr_on_a_java_task_through_a_loopback_openai_server(java_geometry_dataset, tmp_path, monkeypatch):
    """The real openai client; the model forgets an import, the compiler's error comes back, get_imports finds it."""
    import pyarrow.parquet as pq

    from benchsmith.core.schema import to_table
    from benchsmith.generation.candidates.agent_run import AgentRunOptions, run_agent, transcripts_path
    from benchsmith.generation.models import get_backend
    from tests.helpers.openai_server import OpenAIServer, Reply

    rectangle = next(t for t in read_records(java_geometry_dataset, ClassBenchTask) if t.class_name == "Rectangle")
    dataset = tmp_path / "rectangle.parquet"
    pq.write_table(to_table([rectangle], ClassBenchTask, benchmark="classbench-java"), dataset)
    assert run_cli("describe", "--dataset", str(dataset), "--backend", "template").returncode == 0
    gold = rectangle.ground_truth_class
    forgetful = gold.replace("import java.util.Objects;\n", "")
    with OpenAIServer() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.delenv("OPENAI_API_KEY", raising=False)
        monkeypatch.delenv("AZURE_OPENAI_ENDPOINT", raising=False)
        server.script.queue.extend(
            [
                f"```java\n{forgetful}```\n",
                Reply(
                    "Thought: Objects is not found; get_imports will say where it lives.",
                    (("get_imports", {}), ("get_class_info", {"class_name": "Polygon"})),
                ),
                Reply(None, (("get_signature", {"class_name": "Shape", "method_name": "area"}),)),
                "Objects was used without its import; the next attempt imports java.util.Objects.",
                f"Here it is:\n\n```java\n{gold}```\n",
            ]
        )
        out = tmp_path / "rrr.jsonl"
        backend = get_backend("openai", "gpt-test", max_retries=0, use_cache=False)
        summary = run_agent(dataset, backend, out, AgentRunOptions("rrr", tool_format="openai"))
        requests = [r.body for r in server.chat_requests()]
    assert (summary.candidates, summary.passed) == (2, 1)
    assert "cannot find symbol" in requests[1]["messages"][0]["content"]  # the compiler's error, as feedback
    answered = requests[2]["messages"]
    assert [m["role"] for m in answered] == ["user", "assistant", "tool", "tool"]
    assert "* Objects: import java.util.Objects;" in answered[2]["content"]
    assert answered[3]["content"].startswith("Class signature: public abstract class Polygon extends Shape")
    (transcript,) = [json.loads(line) for line in transcripts_path(out).read_text().splitlines()]
    assert [e["passed"] for e in transcript["events"] if e["kind"] == "verdict"] == [False, True]
