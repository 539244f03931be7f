"""Prompt templates: every rendered prompt pinned by a golden file, shot selection checked by hand."""

from __future__ import annotations

import dataclasses
import hashlib
import random
from pathlib import Path

import pytest

from benchsmith.core.errors import BenchsmithError
from benchsmith.core.schema import NL2FixInstance
from benchsmith.generation.models.base import Message
from benchsmith.generation.prompts import STRATEGIES, prompt_hash, render, strategy_hash, templates_for
from benchsmith.generation.prompts import classbench as classbench_prompts
from benchsmith.generation.prompts import nl2fix as nl2fix_prompts
from benchsmith.generation.prompts import renderer as render_module
from tests.helpers.records import LEDGER_BALANCE, LEDGER_POST, LEDGER_TOTAL, classbench_task, nl2fix_instance

GOLDEN = Path(__file__).parent.parent / "golden" / "prompts"
CLASSBENCH_GOLDEN = Path(__file__).parent.parent / "golden" / "classbench"


def conversation_text(messages: tuple[Message, ...]) -> str:
    return "".join(f"=== {m.role} ===\n{m.content}\n" for m in messages)


def rendered_prompts() -> dict[str, tuple[Message, ...]]:
    shots = nl2fix_prompts.nearest_shots([LEDGER_BALANCE, LEDGER_POST, LEDGER_TOTAL])
    task = classbench_task()
    return {
        "zero-shot": nl2fix_prompts.zero_shot(LEDGER_BALANCE),
        "title-only": nl2fix_prompts.title_only(LEDGER_BALANCE),
        "one-shot": nl2fix_prompts.one_shot(LEDGER_BALANCE, shots["Ledger-3"]),
        "reasoning-turn-1": nl2fix_prompts.reasoning(LEDGER_BALANCE),
        "reasoning-turn-2": nl2fix_prompts.reasoning(LEDGER_BALANCE, ["Line 5: `total -= entry.amount();`"]),
        "reasoning-turn-3": nl2fix_prompts.reasoning(
            LEDGER_BALANCE, ["Line 5: `total -= entry.amount();`", "It subtracts the amount where it should add it."]
        ),
        "classbench-basic-detailed": classbench_prompts.basic(task, "detailed"),
        "classbench-basic-sketchy": classbench_prompts.basic(task, "sketchy"),
        "describe-detailed": classbench_prompts.describe(task, "detailed"),
        "describe-sketchy": classbench_prompts.describe(task, "sketchy"),
    }


@pytest.mark.parametrize("name", sorted(rendered_prompts()))
def test_rendered_prompt_matches_golden(name):
    assert conversation_text(rendered_prompts()[name]) == (GOLDEN / f"{name}.txt").read_text(encoding="utf-8")


def test_every_golden_file_is_checked():
    assert sorted(p.stem for p in GOLDEN.glob("*.txt")) == sorted(rendered_prompts())


def test_one_shot_of_the_ledger_takes_the_nearest_buggy_method():
    # total() differs from balance() far less than post() does.
    shots = nl2fix_prompts.nearest_shots([LEDGER_BALANCE, LEDGER_POST, LEDGER_TOTAL])
    assert shots["Ledger-3"].instance_id == "Ledger-2"
    assert shots["Ledger-2"].instance_id == "Ledger-3"


def _tiny(instance_id: str, buggy: str) -> NL2FixInstance:
    return nl2fix_instance(instance_id, "f", buggy, buggy + " ")


def test_nearest_shot_by_edit_distance_with_ties_to_the_smallest_id():
    # Distances worked out by hand: x/y/z differ by one substitution; "xyz" is two insertions from "x",
    # "y" or "z" and one from "xy"; "xy" is one from "x" and "y" and two from "z".
    pool = [
        _tiny("P-4", "return z;"),
        _tiny("P-1", "return x;"),
        _tiny("P-3", "return xyz;"),
        _tiny("P-2", "return y;"),
        _tiny("P-5", "return xy;"),
    ]
    expected = {"P-1": "P-2", "P-2": "P-1", "P-3": "P-5", "P-4": "P-1", "P-5": "P-1"}
    assert {k: v.instance_id for k, v in nl2fix_prompts.nearest_shots(pool).items()} == expected
    shuffled = pool[:]
    random.Random(7).shuffle(shuffled)
    assert {k: v.instance_id for k, v in nl2fix_prompts.nearest_shots(shuffled).items()} == expected


def test_an_identical_twin_is_a_fine_shot_but_never_the_instance_itself():
    pool = [_tiny("P-1", "return x;"), _tiny("P-2", "return x;")]
    shots = nl2fix_prompts.nearest_shots(pool)
    assert shots["P-1"].instance_id == "P-2" and shots["P-2"].instance_id == "P-1"
    with pytest.raises(ValueError):
        nl2fix_prompts.one_shot(pool[0], pool[0])
    with pytest.raises(BenchsmithError, match="at least two instances"):
        nl2fix_prompts.nearest_shots(pool[:1])


def test_values_are_inserted_verbatim_and_not_rescanned():
    text = nl2fix_prompts.zero_shot(LEDGER_BALANCE)[0].content
    assert "{ACCOUNT}" in text and "$12" in text and "\r" not in text


def test_render_refuses_missing_or_unknown_values():
    with pytest.raises(ValueError, match="placeholders"):
        render("title-only", ISSUE_TITLE="t")
    with pytest.raises(ValueError, match="placeholders"):
        render("reasoning-explain", EXTRA="x")


def test_title_only_leaves_the_description_out():
    text = nl2fix_prompts.title_only(LEDGER_BALANCE)[0].content
    assert LEDGER_BALANCE.issue_title in text and "Posting 5" not in text


def test_prompts_show_the_comment_free_buggy_method():
    instance = dataclasses.replace(LEDGER_TOTAL, buggy_method="// FIX: add, not subtract\n" + LEDGER_TOTAL.buggy_method)
    for messages in (
        nl2fix_prompts.zero_shot(instance),
        nl2fix_prompts.title_only(instance),
        nl2fix_prompts.reasoning(instance),
    ):
        assert "FIX:" not in messages[0].content


def test_basic_prompt_needs_the_description():
    task = dataclasses.replace(classbench_task(), sketchy_description="")
    with pytest.raises(BenchsmithError, match="run `benchsmith describe`"):
        classbench_prompts.basic(task, "sketchy")
    with pytest.raises(BenchsmithError, match="not one of"):
        classbench_prompts.basic(task, "vague")


def test_prompt_hash_covers_the_prompt_text_not_the_comments(tmp_path, monkeypatch):
    assert len({strategy_hash(s) for s in STRATEGIES}) == len(STRATEGIES)
    assert prompt_hash(["zero-shot", "one-shot"]) == prompt_hash(["one-shot", "zero-shot", "zero-shot"])
    assert strategy_hash("one-shot") == prompt_hash(templates_for("one-shot"))
    (tmp_path / "t.txt").write_text(";; why\nAsk {THING}.\n", encoding="utf-8")
    monkeypatch.setattr(render_module, "TEMPLATES", tmp_path)
    render_module.template_body.cache_clear()
    try:
        first = prompt_hash(["t"])
        assert first == hashlib.sha256(b"t\0Ask {THING}.\0").hexdigest()
        (tmp_path / "t.txt").write_text(";; a better explanation\n;; of why\nAsk {THING}.\n", encoding="utf-8")
        render_module.template_body.cache_clear()
        assert prompt_hash(["t"]) == first
        (tmp_path / "t.txt").write_text(";; why\nPlease ask {THING}.\n", encoding="utf-8")
        render_module.template_body.cache_clear()
        assert prompt_hash(["t"]) != first
    finally:
        render_module.template_body.cache_clear()
