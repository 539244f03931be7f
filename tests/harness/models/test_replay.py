"""The replay backend: answers recorded in JSON Lines, in both row shapes."""

import json

import pytest

from benchsmith.core.errors import BenchsmithError
from benchsmith.generation.models import get_backend
from benchsmith.generation.models.base import ChatRequest, Message


def write_rows(path, rows):
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def request(item_id: str, purpose: str, n: int = 1, **context: str) -> ChatRequest:
    return ChatRequest(messages=(Message("user", "…"),), n=n, item_id=item_id, purpose=purpose, context=context)


def candidate(instance_id: str, number: int, code: str, **extra):
    return {"instance_id": instance_id, "candidate_id": f"{instance_id}/{number}", "code": code, **extra}


@pytest.fixture
def candidates_file(tmp_path):
    return write_rows(
        tmp_path / "candidates.jsonl",
        [
            candidate("Cli-1", 0, "any strategy A", model="gpt-x"),
            candidate("Cli-1", 1, "one-shot B", model="gpt-x", strategy="one-shot"),
            candidate("Cli-1", 2, "any strategy C", model="gpt-x"),
            candidate("Cli-1", 3, "one-shot D", model="gpt-x", strategy="one-shot"),
            candidate("Cli-1", 4, "reasoning E", model="gpt-x", strategy="reasoning"),
            candidate("Math-2", 0, "math F", model="gpt-x"),
        ],
    )


def test_generation_answers_recorded_code_in_file_order_up_to_n(candidates_file):
    backend = get_backend("replay", replay=candidates_file)
    assert backend.model == "gpt-x"
    response = backend.complete(request("Cli-1", "generate/zero-shot", n=1))
    assert response.texts == ["any strategy A"] and response.model == "gpt-x"
    # rows naming the strategy are preferred; never more than recorded
    assert backend.complete(request("Cli-1", "generate/one-shot", n=5)).texts == ["one-shot B", "one-shot D"]
    assert backend.complete(request("Cli-1", "generate/title-only", n=5)).texts == ["any strategy A", "any strategy C"]
    assert backend.complete(request("Cli-1", "generate/zero-shot", n=1, sample="1")).texts == ["any strategy C"]


def test_a_missing_item_gets_no_texts(candidates_file):
    backend = get_backend("replay", replay=candidates_file)
    assert backend.complete(request("Lang-9", "generate/zero-shot", n=3)).texts == []
    assert backend.complete(request("Lang-9", "generate/reasoning/turn-1", n=3)).texts == []
    assert backend.complete(request("Cli-1", "describe/detailed")).texts == []


def test_intermediate_turns_get_empty_texts_and_the_final_turn_the_code(candidates_file, tmp_path):
    backend = get_backend("replay", replay=candidates_file)
    assert backend.complete(request("Cli-1", "generate/reasoning/turn-1", n=2)).texts == ["", ""]
    assert backend.complete(request("Cli-1", "generate/reasoning/turn-2", n=2)).texts == ["", ""]
    assert backend.complete(request("Cli-1", "generate/reasoning/turn-3", n=2)).texts == ["reasoning E"]
    final = request("Cli-1", "generate/reasoning/turn-2", n=1, final_turn="true")
    assert backend.complete(final).texts == ["reasoning E"]
    with_turns = write_rows(
        tmp_path / "turns.jsonl",
        [
            candidate("Cli-1", 0, "line 7 is buggy", strategy="reasoning", turn=1),
            candidate("Cli-1", 0, "it forgets null", strategy="reasoning", turn=2),
            candidate("Cli-1", 0, "fixed()", strategy="reasoning"),
        ],
    )
    turns = get_backend("replay", replay=with_turns)
    assert turns.complete(request("Cli-1", "generate/reasoning/turn-1")).texts == ["line 7 is buggy"]
    assert turns.complete(request("Cli-1", "generate/reasoning/turn-2")).texts == ["it forgets null"]
    assert turns.complete(request("Cli-1", "generate/reasoning/turn-3")).texts == ["fixed()"]


def test_description_rows_answer_describe_requests(tmp_path):
    path = write_rows(
        tmp_path / "descriptions.jsonl",
        [
            {
                "task_id": "click-Command",
                "detailed_description": "A command…",
                "sketchy_description": "Runs things.",
                "model": "gpt-4",
            },
            {"task_id": "click-Group", "detailed_description": "A group of commands.", "model": "gpt-4"},
        ],
    )
    backend = get_backend("replay", replay=path)
    assert backend.model == "gpt-4"
    assert backend.complete(request("click-Command", "describe/detailed")).texts == ["A command…"]
    assert backend.complete(request("click-Command", "describe/sketchy")).texts == ["Runs things."]
    assert backend.complete(request("click-Group", "describe/sketchy")).texts == []
    with pytest.raises(BenchsmithError, match="cannot answer purpose 'rank'"):
        backend.complete(request("click-Group", "rank"))


def test_model_is_replay_unless_every_row_agrees(tmp_path):
    rows = [candidate("A-1", 0, "x", model="m1"), candidate("A-1", 1, "y", model="m2")]
    mixed = write_rows(tmp_path / "mixed.jsonl", rows)
    assert get_backend("replay", replay=mixed).model == "replay"
    unnamed = write_rows(tmp_path / "unnamed.jsonl", [candidate("A-1", 0, "x", model="m1"), candidate("A-1", 1, "y")])
    backend = get_backend("replay", replay=unnamed)
    assert backend.model == "replay"
    assert backend.complete(request("A-1", "generate/zero-shot")).model == "m1"
    assert get_backend("replay", "my-name", replay=unnamed).model == "my-name"


@pytest.mark.parametrize(
    "line, problem",
    [
        ("{not json", "2: not JSON"),
        ('["a list"]', "2: expected a JSON object"),
        ('{"instance_id": "Cli-2", "candidate_id": "c"}', "2: missing or non-string code"),
        ('{"task_id": "t"}', "2: a description row needs detailed_description or sketchy_description"),
        ('{"code": "x"}', "2: neither a candidates row"),
        (
            '{"instance_id": "Cli-2", "candidate_id": "c", "code": "x", "turn": "one"}',
            "2: turn must be a positive integer",
        ),
    ],
)
def test_a_malformed_file_names_file_and_line(tmp_path, line, problem):
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(candidate("Cli-1", 0, "ok")) + "\n" + line + "\n")
    with pytest.raises(BenchsmithError, match=f"^{path}:{problem}"):
        get_backend("replay", replay=path)


def test_a_missing_or_empty_file_is_an_error(tmp_path):
    with pytest.raises(BenchsmithError, match="no such replay file"):
        get_backend("replay", replay=tmp_path / "absent.jsonl")
    (tmp_path / "empty.jsonl").write_text("\n")
    with pytest.raises(BenchsmithError, match="empty replay file"):
        get_backend("replay", replay=tmp_path / "empty.jsonl")
