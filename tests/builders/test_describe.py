"""``describe`` end to end: the offline template backend, the openai client against a local server, resumption."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from benchsmith.builders.describe import describe
from benchsmith.cli import main
from benchsmith.core.errors import BenchsmithError
from benchsmith.core.schema import ClassBenchTask, NL2FixInstance, read_records, to_table
from benchsmith.generation.models import get_backend
from benchsmith.generation.prompts import classbench as classbench_prompts
from benchsmith.generation.prompts import strategy_hash
from tests.helpers.interrupted import InterruptedAfter
from tests.helpers.openai_server import OpenAIServer
from tests.helpers.records import LEDGER_POST, classbench_task


def undescribed(task_id_suffix: str = "") -> ClassBenchTask:
    task = classbench_task()
    return dataclasses.replace(
        task, task_id=task.task_id + task_id_suffix, detailed_description="", sketchy_description=""
    )


@pytest.fixture
def dataset(tmp_path) -> Path:
    path = tmp_path / "classbench.parquet"
    pq.write_table(to_table([undescribed(), undescribed("-copy")], ClassBenchTask), path)
    return path


def test_template_backend_fills_descriptions_and_provenance_and_a_rerun_skips(dataset):
    summary = describe(dataset, get_backend("template"))
    assert (summary.tasks, summary.described, summary.skipped) == (2, 2, 0)
    tasks = read_records(dataset, ClassBenchTask)
    for task in tasks:
        assert "Polygon" in task.detailed_description and "Polygon" in task.sketchy_description
        assert task.detailed_description != task.sketchy_description
        assert (task.description_backend, task.description_model) == ("template", "template-v1")
        assert task.description_prompt_hash == strategy_hash("describe")
        assert task.detailed_metadata == classbench_task().detailed_metadata  # the rest is untouched
    written = dataset.stat().st_mtime_ns
    again = describe(dataset, get_backend("template"))
    assert (again.described, again.skipped) == (0, 2)
    assert dataset.stat().st_mtime_ns == written  # nothing changed, nothing rewritten
    assert read_records(dataset, ClassBenchTask) == tasks


def test_openai_descriptions_requests_and_redescribing_what_another_backend_wrote(dataset, tmp_path, monkeypatch):
    out = tmp_path / "described.parquet"
    describe(dataset, get_backend("template"), out)
    with OpenAIServer() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.delenv("AZURE_OPENAI_ENDPOINT", raising=False)
        server.reply("Function body:", "DETAILED: Polygon keeps its points and computes its area.")
        server.reply("Function docstring:", "SKETCHY: a polygon.")
        summary = describe(out, get_backend("openai", "gpt-4-test", max_retries=0))
        sent = server.chat_requests()
    assert summary.described == 2 and summary.skipped == 0  # described by template before: not the same backend
    assert len(sent) == 4 and all(r.body["temperature"] == 0.0 for r in sent)
    task = undescribed()
    assert {r.body["messages"][0]["content"] for r in sent} == {
        classbench_prompts.describe(task, "detailed")[0].content,
        classbench_prompts.describe(task, "sketchy")[0].content,
    }
    described = read_records(out, ClassBenchTask)
    assert {t.detailed_description for t in described} == {"DETAILED: Polygon keeps its points and computes its area."}
    assert {t.sketchy_description for t in described} == {"SKETCHY: a polygon."}
    assert {(t.description_backend, t.description_model) for t in described} == {("openai", "gpt-4-test")}
    assert all(
        t.detailed_description == "" for t in read_records(dataset, ClassBenchTask)
    )  # --out leaves the input alone


def test_an_interrupted_describe_resumes_from_its_journal(dataset):
    with pytest.raises(KeyboardInterrupt):
        describe(dataset, InterruptedAfter(get_backend("template"), 2), concurrency=1)
    journal = dataset.with_name(dataset.name + ".journal.jsonl")
    assert [json.loads(line)["task_id"] for line in journal.read_text().splitlines()] == [undescribed().task_id]
    assert all(t.description_backend == "" for t in read_records(dataset, ClassBenchTask))
    backend = InterruptedAfter(get_backend("template"), 2)  # enough for the one task left, not for both
    summary = describe(dataset, backend, concurrency=1)
    assert (summary.resumed, summary.described) == (1, 1)
    assert all(t.description_backend == "template" for t in read_records(dataset, ClassBenchTask))
    assert not journal.exists()


def test_empty_answers_leave_the_task_undescribed_and_are_counted(dataset, tmp_path):
    replay = tmp_path / "descriptions.jsonl"
    replay.write_text(
        json.dumps({"task_id": undescribed().task_id, "detailed_description": "D", "sketchy_description": "S"}) + "\n"
    )
    summary = describe(dataset, get_backend("replay", replay=replay))
    assert summary.described == 1 and summary.without_answers == [undescribed("-copy").task_id]
    by_id = {t.task_id: t for t in read_records(dataset, ClassBenchTask)}
    assert (by_id[undescribed().task_id].detailed_description, by_id[undescribed().task_id].sketchy_description) == (
        "D",
        "S",
    )
    assert by_id[undescribed("-copy").task_id].description_backend == ""


def test_cli_describe_and_a_non_classbench_dataset(dataset, tmp_path, capsys):
    assert main(["describe", "--dataset", str(dataset), "--backend", "template"]) == 0
    assert "2 of 2 tasks described by template" in capsys.readouterr().out
    assert main(["describe", "--dataset", str(dataset)]) == 0  # template is the default; nothing left to do
    assert "0 of 2 tasks described by template (2 already were" in capsys.readouterr().out
    nl2fix = tmp_path / "nl2fix.parquet"
    pq.write_table(to_table([LEDGER_POST], NL2FixInstance), nl2fix)
    assert main(["describe", "--dataset", str(nl2fix)]) == 2
    assert "carry no descriptions to write" in capsys.readouterr().err
    with pytest.raises(BenchsmithError, match="no such dataset file"):
        describe(tmp_path / "missing.parquet", get_backend("template"))
