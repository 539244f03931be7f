"""One candidate, one verdict: text built to break the harness's own parsers (red team, round 4).

Each bomb is a small file that the language's compiler takes, wrapped around code that is wrong on purpose, so a
plausible verdict could only mean the harness was fooled. Between honest twins (the ground truth, judged before and
after the bombs), ``eval`` must finish with a verdict for every candidate, keep the honest ones plausible and give no
bomb a plausible one. Before, 300 nested parentheses in a Java method (javalang's one-method rule) and 3,000 chained
``+1`` terms in a Python attribute (the dedup key's ``ast.parse``) raised RecursionError in the harness itself, and
``eval`` died with no results file.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from benchsmith.core.bounds import unreadable
from benchsmith.core.schema import ClassBenchTask, NL2FixInstance, Result, read_records
from benchsmith.generation.prompts.extraction import extract_java_method, extract_python_class
from benchsmith.runners.python.class_runner import reference_solution
from tests.conftest import run_benchsmith
from tests.helpers.cli import eval_cli


def java_bombs() -> dict[str, str]:
    """Statements javac compiles, each a different way to nest or chain deeply."""
    return {
        "nested-parentheses": "int bomb = " + "(" * 300 + "1" + ")" * 300 + ";",
        "chained-operators": "int bomb = " + " + ".join(["1"] * 3000) + ";",
        "deep-blocks": "{" * 300 + "}" * 300,
        "huge-literal": "int[] bomb = {" + ",".join(["7"] * 100_000) + "};",
        "unary-chain": "int bomb = " + "- " * 3000 + "1;",
    }


def python_bombs() -> dict[str, str]:
    """Class bodies CPython compiles (or refuses itself), each nesting or chaining deeply."""
    indented = "".join("    " + "  " * depth + "if True:\n" for depth in range(60)) + "    " + "  " * 60 + "pass\n"
    return {
        "nested-parentheses": "    bomb = " + "(" * 150 + "1" + ")" * 150 + "\n",
        "chained-operators": "    bomb = " + "+".join(["1"] * 3000) + "\n",
        "deep-indentation": indented,
        "huge-literal": "    bomb = [" + ",".join(["7"] * 200_000) + "]\n",
        "unary-chain": "    bomb = " + "-" * 3000 + "1\n",
    }


def between_twins(gold: str, bombs: dict[str, str]) -> dict[str, str]:
    codes = {"gold-before": gold}
    codes.update(bombs)
    codes["gold-after"] = gold + "\n"
    return codes


def judged(tmp_path: Path, instance_id: str, codes: dict[str, str], run) -> dict[str, Result]:
    candidates = tmp_path / "candidates.jsonl"
    rows = [{"instance_id": instance_id, "candidate_id": c, "code": code} for c, code in codes.items()]
    candidates.write_text("".join(json.dumps(row) + "\n" for row in rows))
    out = tmp_path / "results.parquet"
    completed = run(candidates, out)
    assert completed.returncode == 0, completed.stderr[-3000:]
    return {r.candidate_id: r for r in read_records(out, Result)}


def assert_contained(results: dict[str, Result], bombs: dict[str, str]) -> None:
    assert set(results) == {"gold-before", "gold-after", *bombs}  # a verdict for every candidate
    assert results["gold-before"].status == results["gold-after"].status == "plausible"
    for name in bombs:
        assert results[name].status != "plausible", (name, results[name].reason)


@pytest.mark.java
def test_java_parser_bombs_cost_only_themselves(tmp_path, ledger_dataset, fixture_repos):
    instance = {r.instance_id: r for r in read_records(ledger_dataset, NL2FixInstance)}["Ledger-1"]
    # each bomb opens the buggy method's body: javac compiles it, and the method stays wrong
    head, _, body = instance.buggy_method.partition("{")
    bombs = {name: f"{head}{{\n{statement}\n{body}" for name, statement in java_bombs().items()}
    # a failure message holding a lone UTF-16 surrogate (spelled in ASCII): JSON carries it as \ud800, which decodes
    # to a string no log, Parquet file or HTTP answer can encode (red team round 5: the verdict became an error)
    bombs["lone-surrogate"] = f'{head}{{\nif (true) throw new IllegalStateException("bad \\uD800 here");\n{body}'
    results = judged(
        tmp_path,
        "Ledger-1",
        between_twins(instance.fixed_method, bombs),
        lambda candidates, out: eval_cli(ledger_dataset, candidates, out, fixture_repos),
    )
    assert_contained(results, bombs)
    assert results["nested-parentheses"].status == "uncompilable"
    assert results["lone-surrogate"].status == "wrong", results["lone-surrogate"].reason
    assert "nested 301 deep" in results["nested-parentheses"].reason


def test_python_parser_bombs_cost_only_themselves(tmp_path, geometry_dataset):
    (task,) = read_records(geometry_dataset, ClassBenchTask)
    # each bomb is a class body of the empty class's shape: no method the directives call
    bombs = {name: f"class {task.class_name}:\n{body}" for name, body in python_bombs().items()}
    bombs["lone-surrogate"] = (
        f"class {task.class_name}:\n    def area(self):\n        raise AssertionError('bad \\ud800')\n"
    )
    results = judged(
        tmp_path,
        task.task_id,
        between_twins(reference_solution(task), bombs),
        lambda candidates, out: run_benchsmith(
            "eval", "--dataset", str(geometry_dataset), "--candidates", str(candidates), "--out", str(out)
        ),
    )
    assert_contained(results, bombs)
    assert results["lone-surrogate"].status == "wrong", results["lone-surrogate"].reason


def test_the_scan_refuses_what_the_parsers_cannot_read_and_extraction_goes_on():
    assert unreadable("(" * 101 + ")" * 101).startswith("brackets nested 101 deep")
    assert unreadable("(" * 100 + ")" * 100) == ""
    assert "more than the harness reads" in unreadable("x" * 1_000_001)
    for name, statement in java_bombs().items():
        answer = "```java\nint total() {\n" + statement + "\nreturn 0;\n}\n```"
        assert extract_java_method(answer, "total").reason, name  # an extraction with its reason, never a crash
    for name, body in python_bombs().items():
        extracted = extract_python_class(f"```python\nclass Polygon:\n{body}```", "Polygon")
        assert extracted.reason, name


# Red team round 6: answers the extraction reads in time that grows with the square of their length (or worse), each
# within the scan's 1,000,000 characters. The fence pattern backtracked over a line's info string (16 KB: 2 s, the
# whole answer: hours); the Java declaration scan tokenized the rest of the answer again from every line naming the
# method (32 KB of "compute()" lines: over 20 s); an unclosed parenthesised import above a class in prose was joined
# again for every line after it (48 KB: 1.1 s). Generation and agent runs extract every answer in their own process.
EXTRACTION_BOMBS = {
    "fence-info-string": ("java", "```" + "a" * 250_000 + "`\n"),
    "lines-naming-the-method": ("java", "compute()\n" * 30_000),
    "lines-naming-the-method-with-arguments": ("java", "compute(a);\n" * 25_000),
    "unclosed-import-above-the-class": (
        "python",
        "Here it is:\nfrom a import (\n" + "b,\n" * 150_000 + "class Polygon:\n    pass\nthat is all (",
    ),
}


@pytest.mark.parametrize("name", sorted(EXTRACTION_BOMBS))
def test_extraction_reads_an_answer_in_time_linear_in_its_length(name):
    language, answer = EXTRACTION_BOMBS[name]
    assert not unreadable(answer)  # within the bounds: the extraction must read it, and in time
    extract = {
        "java": "extract_java_method(answer, 'compute', '')",
        "python": "extract_python_class(answer, 'Polygon')",
    }
    program = (
        "import sys, time\n"
        "from benchsmith.generation.prompts.extraction import extract_java_method, extract_python_class\n"
        "answer = sys.stdin.read()\n"
        f"extraction = {extract[language]}\n"
        "print(extraction.found, extraction.reason)\n"
    )
    try:  # a child process: a regular expression in C cannot be interrupted, a process can be killed
        completed = subprocess.run(
            [sys.executable, "-c", program], input=answer, capture_output=True, text=True, timeout=30
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"{name}: extracting from a {len(answer):,}-character answer took over 30 s")
    assert completed.returncode == 0, completed.stderr[-2000:]
    assert completed.stdout.strip(), name
