"""``generate`` end to end: the real openai client against a local OpenAI-format server, and the replay backend."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from benchsmith.cli import main
from benchsmith.core.errors import BenchsmithError
from benchsmith.core.journal import journal_path
from benchsmith.core.schema import ClassBenchTask, NL2FixInstance, read_candidates, to_table
from benchsmith.generation.candidates.generate import generate
from benchsmith.generation.models import get_backend
from benchsmith.generation.prompts import nl2fix as nl2fix_prompts
from tests.helpers.interrupted import InterruptedAfter
from tests.helpers.openai_server import OpenAIServer, words
from tests.helpers.records import LEDGER_BALANCE, LEDGER_POST, LEDGER_TOTAL, classbench_task

BALANCE_FIX = LEDGER_BALANCE.fixed_method.replace("            // credits add up\n", "")
POST_FIX = LEDGER_POST.fixed_method
TOTAL_FIX = "public long total() {\n    long sum = 0;\n    for (Entry entry : entries) {\n        sum += entry.amount();\n    }\n    return sum;\n}"


def indent(code: str, by: str = "    ") -> str:
    return "\n".join(by + line if line else line for line in code.split("\n"))


# Chatty answers in the shapes models give them.
BALANCE_ANSWER = f"Here is the fixed method:\n\n```java\n{BALANCE_FIX}\n```\n\nExplanation: credits were subtracted."
POST_ANSWER = f"```java\npublic class Ledger {{\n    private final List<Entry> entries = new ArrayList<>();\n\n{indent(POST_FIX)}\n}}\n```"
TOTAL_ANSWER = f"Sure! The loop subtracts.\n\n{TOTAL_FIX}\n\nThat's all: it's a sign error.".replace("\n", "\r\n")


@pytest.fixture
def nl2fix_dataset(tmp_path) -> Path:
    path = tmp_path / "nl2fix.parquet"
    pq.write_table(to_table([LEDGER_POST, LEDGER_TOTAL, LEDGER_BALANCE], NL2FixInstance), path)
    return path


@pytest.fixture
def classbench_dataset(tmp_path) -> Path:
    path = tmp_path / "classbench.parquet"
    pq.write_table(to_table([classbench_task()], ClassBenchTask), path)
    return path


@pytest.fixture
def server(monkeypatch):
    with OpenAIServer() as running:
        monkeypatch.setenv("OPENAI_BASE_URL", running.base_url)
        monkeypatch.delenv("OPENAI_API_KEY", raising=False)
        monkeypatch.delenv("AZURE_OPENAI_ENDPOINT", raising=False)
        yield running


def openai_backend(**options):
    return get_backend("openai", "gpt-test", max_retries=0, **options)


def rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_zero_shot_through_the_openai_client(server, nl2fix_dataset, tmp_path):
    server.reply("long balance(String account)", BALANCE_ANSWER)
    server.reply("void post(String account", POST_ANSWER, "I'm not sure what to change.")
    server.reply("long total()", TOTAL_ANSWER)
    out = tmp_path / "candidates.jsonl"
    summary = generate(nl2fix_dataset, "zero-shot", openai_backend(), 3, 0.8, out, concurrency=2)

    written = rows(out)
    assert [(r["instance_id"], r["candidate_id"]) for r in written] == [
        (i, f"zero-shot-{s}") for i in ("Ledger-1", "Ledger-2", "Ledger-3") for s in range(3)
    ]
    codes = {(r["instance_id"], r["sample"]): r["code"] for r in written}
    assert codes[("Ledger-3", 0)] == codes[("Ledger-3", 2)] == BALANCE_FIX
    assert codes[("Ledger-2", 1)] == TOTAL_FIX
    assert codes[("Ledger-1", 0)] == codes[("Ledger-1", 2)] == POST_FIX
    assert codes[("Ledger-1", 1)] == "I'm not sure what to change."  # no code: the answer itself, judged uncompilable
    assert all(r["model"] == "gpt-test" and r["strategy"] == "zero-shot" and r["temperature"] == 0.8 for r in written)
    assert [c.candidate_id for c in read_candidates(out)] == [r["candidate_id"] for r in written]
    assert summary.candidates == 9 and summary.not_extracted == 1 and summary.without_answers == []
    assert not journal_path(out).exists()

    sent = server.chat_requests()
    assert len(sent) == 3 and {r.body["n"] for r in sent} == {3} and {r.body["temperature"] for r in sent} == {0.8}
    prompts = sorted(r.body["messages"][0]["content"] for r in sent)
    expected = sorted(nl2fix_prompts.zero_shot(i)[0].content for i in (LEDGER_BALANCE, LEDGER_POST, LEDGER_TOTAL))
    assert prompts == expected and all(len(r.body["messages"]) == 1 for r in sent)
    assert summary.usage.requests == 3
    assert summary.usage.prompt_tokens == sum(words(p) for p in prompts)

    # The disk cache answers a rerun: nothing more is sent.
    generate(nl2fix_dataset, "zero-shot", openai_backend(), 3, 0.8, tmp_path / "again.jsonl")
    assert len(server.chat_requests()) == 3
    assert rows(tmp_path / "again.jsonl") == written


def test_reasoning_chains_three_turns_and_samples_only_the_last(server, nl2fix_dataset, tmp_path):
    server.reply("Identify which line(s) are buggy", "The line with `-=` is buggy.")
    server.reply("Explain why these lines are buggy", "Amounts must be added, not subtracted.")
    # One answer holding all three methods: extraction must take each instance's own.
    server.reply(
        "Please provide a fixed version",
        f"```java\n{POST_FIX}\n```\n```java\n{TOTAL_FIX}\n```\n```java\n{BALANCE_FIX}\n```",
    )
    out = tmp_path / "reasoning.jsonl"
    summary = generate(nl2fix_dataset, "reasoning", openai_backend(), 4, 0.8, out)

    sent = server.chat_requests()
    assert len(sent) == 3 * 3
    by_turn = {k: [r for r in sent if len(r.body["messages"]) == 2 * k - 1] for k in (1, 2, 3)}
    assert all(len(requests) == 3 for requests in by_turn.values())
    assert all("n" not in r.body for r in by_turn[1] + by_turn[2])  # n=1: the client leaves n out
    assert all(r.body["n"] == 4 for r in by_turn[3])
    chain = next(r.body["messages"] for r in by_turn[3] if "long total()" in r.body["messages"][0]["content"])
    assert chain == [
        {"role": "user", "content": nl2fix_prompts.reasoning(LEDGER_TOTAL)[0].content},
        {"role": "assistant", "content": "The line with `-=` is buggy."},
        {"role": "user", "content": "Explain why these lines are buggy."},
        {"role": "assistant", "content": "Amounts must be added, not subtracted."},
        {"role": "user", "content": "Please provide a fixed version of the code with minimal changes."},
    ]
    codes = {(r["instance_id"], r["candidate_id"]): r["code"] for r in rows(out)}
    assert len(codes) == 12 and summary.candidates == 12
    assert codes[("Ledger-1", "reasoning-3")] == POST_FIX
    assert codes[("Ledger-2", "reasoning-0")] == TOTAL_FIX
    assert codes[("Ledger-3", "reasoning-1")] == BALANCE_FIX


def test_one_shot_sends_the_nearest_instance_as_the_example(server, nl2fix_dataset, tmp_path):
    generate(nl2fix_dataset, "one-shot", openai_backend(), 1, 0.2, tmp_path / "one-shot.jsonl")
    sent = {r.body["messages"][0]["content"] for r in server.chat_requests()}
    shots = nl2fix_prompts.nearest_shots([LEDGER_BALANCE, LEDGER_POST, LEDGER_TOTAL])
    assert sent == {
        nl2fix_prompts.one_shot(i, shots[i.instance_id])[0].content for i in (LEDGER_BALANCE, LEDGER_POST, LEDGER_TOTAL)
    }
    balance_task = next(text for text in sent if text.endswith(nl2fix_prompts.zero_shot(LEDGER_BALANCE)[0].content))
    assert balance_task.startswith("Issue Title: total() is negative")  # total() is the nearest buggy method


def test_an_interrupted_run_resumes_asking_only_for_what_is_missing(server, nl2fix_dataset, tmp_path):
    server.reply("long balance(String account)", BALANCE_ANSWER)
    server.reply("void post(String account", POST_ANSWER)
    server.reply("long total()", TOTAL_ANSWER)
    out = tmp_path / "candidates.jsonl"
    with pytest.raises(KeyboardInterrupt):
        generate(
            nl2fix_dataset,
            "zero-shot",
            InterruptedAfter(openai_backend(use_cache=False), 1),
            2,
            0.8,
            out,
            concurrency=1,
        )
    assert not out.exists()
    journal = journal_path(out).read_text(encoding="utf-8").splitlines()
    assert len(journal) == 2 and json.loads(journal[1])["item_id"] == "Ledger-1"
    assert len(server.chat_requests()) == 1

    with pytest.raises(BenchsmithError, match=r"other settings \(temperature\)"):
        generate(nl2fix_dataset, "zero-shot", openai_backend(use_cache=False), 2, 0.2, out)
    summary = generate(nl2fix_dataset, "zero-shot", openai_backend(use_cache=False), 2, 0.8, out, concurrency=1)
    assert summary.resumed == 1 and summary.candidates == 6
    sent = server.chat_requests()
    assert (
        len(sent) == 3
        and "void post(" not in sent[1].body["messages"][0]["content"] + sent[2].body["messages"][0]["content"]
    )
    assert [r["code"] for r in rows(out)] == [POST_FIX] * 2 + [TOTAL_FIX] * 2 + [BALANCE_FIX] * 2
    assert not journal_path(out).exists()


def test_replay_backend_and_an_instance_without_answers(nl2fix_dataset, tmp_path):
    replay = tmp_path / "recorded.jsonl"
    recorded = [
        {"instance_id": "Ledger-3", "candidate_id": "x0", "code": BALANCE_ANSWER, "model": "gpt-recorded"},
        {"instance_id": "Ledger-3", "candidate_id": "x1", "code": "no idea", "model": "gpt-recorded"},
        {"instance_id": "Ledger-1", "candidate_id": "y0", "code": POST_ANSWER, "model": "gpt-recorded"},
    ]
    replay.write_text("".join(json.dumps(r) + "\n" for r in recorded), encoding="utf-8")
    out = tmp_path / "candidates.jsonl"
    summary = generate(nl2fix_dataset, "title-only", get_backend("replay", replay=replay), 2, 0.8, out)
    assert summary.without_answers == ["Ledger-2"] and summary.candidates == 3
    assert [(r["instance_id"], r["candidate_id"], r["model"]) for r in rows(out)] == [
        ("Ledger-1", "title-only-0", "gpt-recorded"),
        ("Ledger-3", "title-only-0", "gpt-recorded"),
        ("Ledger-3", "title-only-1", "gpt-recorded"),
    ]
    assert rows(out)[1]["code"] == BALANCE_FIX and rows(out)[2]["code"] == "no idea"


def test_classbench_basic_with_the_sketchy_description(server, classbench_dataset, tmp_path):
    server.reply(
        "Generate the following class",
        "```python\nimport math\nfrom typing import List\n\nclass Polygon:\n"
        "    def area(self) -> float:\n        return math.fsum([])\n```\nThis class computes areas.",
    )
    out = tmp_path / "classbench.jsonl"
    summary = generate(classbench_dataset, "basic", openai_backend(), 2, 0.8, out, description="sketchy")
    assert summary.candidates == 2
    (request,) = server.chat_requests()
    assert "Description: A polygon with a perimeter and an area." in request.body["messages"][0]["content"]
    first = rows(out)[0]
    assert first["instance_id"] == classbench_task().task_id and first["candidate_id"] == "basic-sketchy-0"
    assert (
        first["code"]
        == "import math\nfrom typing import List\n\nclass Polygon:\n    def area(self) -> float:\n        return "
        "math.fsum([])"
    )


def test_wrong_strategy_or_undescribed_tasks_are_one_line_errors(nl2fix_dataset, classbench_dataset, tmp_path):
    replay = tmp_path / "r.jsonl"
    replay.write_text(
        json.dumps({"instance_id": "Ledger-1", "candidate_id": "0", "code": "x"}) + "\n", encoding="utf-8"
    )
    backend = get_backend("replay", replay=replay)
    with pytest.raises(
        BenchsmithError, match="--strategy basic does not apply to the nl2fix benchmark; it must be one of"
    ):
        generate(nl2fix_dataset, "basic", backend, 1, 0.8, tmp_path / "a.jsonl")
    with pytest.raises(BenchsmithError, match="an NL2Fix dataset has no descriptions; --description does not apply"):
        generate(nl2fix_dataset, "zero-shot", backend, 1, 0.8, tmp_path / "a.jsonl", description="sketchy")
    undescribed = tmp_path / "undescribed.parquet"
    pq.write_table(
        to_table([dataclasses.replace(classbench_task(), detailed_description="")], ClassBenchTask), undescribed
    )
    with pytest.raises(BenchsmithError, match="run `benchsmith describe`"):
        generate(undescribed, "basic", backend, 1, 0.8, tmp_path / "a.jsonl")
    with pytest.raises(BenchsmithError, match="only writes descriptions"):
        generate(nl2fix_dataset, "zero-shot", get_backend("template"), 1, 0.8, tmp_path / "a.jsonl")
    assert not (tmp_path / "a.jsonl").exists() and not journal_path(tmp_path / "a.jsonl").exists()


def test_cli_generate(nl2fix_dataset, tmp_path, capsys):
    replay = tmp_path / "recorded.jsonl"
    replay.write_text(
        json.dumps({"instance_id": "Ledger-2", "candidate_id": "0", "code": TOTAL_ANSWER, "model": "m"}) + "\n",
        encoding="utf-8",
    )
    out = tmp_path / "candidates.jsonl"
    argv = [
        "generate",
        "--dataset",
        str(nl2fix_dataset),
        "--strategy",
        "zero-shot",
        "--n",
        "1",
        "--temperature",
        "0.2",
        "--backend",
        "replay",
        "--replay",
        str(replay),
        "--out",
        str(out),
    ]
    assert main(argv) == 0
    assert [r["code"] for r in rows(out)] == [TOTAL_FIX]
    captured = capsys.readouterr()
    assert "1 candidates for 3 items" in captured.out and "2 without an answer" in captured.out
    assert "replay m: 0 requests" in captured.err
    assert main(argv[:4] + ["basic"] + argv[5:]) == 2
    assert "must be one of" in capsys.readouterr().err


def test_ledger_fixture_gold_fixes_wrapped_in_chat_come_back_exactly(ledger_dataset, ledger_instances, tmp_path):
    """Every real fixture method, returned inside a whole class with prose around it, is extracted unchanged."""
    replay = tmp_path / "gold.jsonl"
    with replay.open("w", encoding="utf-8") as handle:
        for instance in ledger_instances.values():
            answer = (
                f"The fix is below.\n\n```java\nclass Wrapper {{\n    private int unrelated() {{ return 0; }}\n\n"
                f"{indent(instance.fixed_method)}\n}}\n```\n\nExplanation: see the issue."
            )
            handle.write(
                json.dumps({"instance_id": instance.instance_id, "candidate_id": "gold", "code": answer}) + "\n"
            )
    out = tmp_path / "candidates.jsonl"
    summary = generate(ledger_dataset, "one-shot", get_backend("replay", replay=replay), 1, 0.0, out)
    assert summary.candidates == len(ledger_instances) and summary.not_extracted == 0
    for row in rows(out):
        assert row["code"] == ledger_instances[row["instance_id"]].fixed_method, row["instance_id"]
