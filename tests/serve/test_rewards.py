"""TRL's and verl's reward functions (benchsmith/serve/rewards.py) return the rewards a real server gives."""

from __future__ import annotations

import inspect

import pytest

from benchsmith.serve import rewards
from benchsmith.serve.rewards import compute_score, extract_code, trl_reward, verl_reward

pytestmark = pytest.mark.java


def test_trl_reward_function(server, tokens, ledger_instances, geometry_task):
    reward = trl_reward(server.url, tokens[0][0])
    one, eight = ledger_instances["Ledger-1"], ledger_instances["Ledger-8"]
    completions = [
        f"Here is the fix:\n```java\n{one.fixed_method}\n```\nIt pads correctly.",  # the standard format
        [{"role": "assistant", "content": f"```java\n{one.buggy_method}\n```"}],  # the conversational format
        eight.fixed_method,  # no fence: all of it is the code
        "I cannot do that.",
    ]
    # as GRPOTrainer calls it: prompts, completions, completion_ids, and the dataset's other columns as lists
    got = reward(
        prompts=["p"] * 4,
        completions=completions,
        completion_ids=[[1, 2]] * 4,
        instance_id=["Ledger-1", "Ledger-1", "Ledger-8", "Ledger-8"],
        trainer_state=None,
    )
    assert got == [1.0, 0.0, 1.0, 0.0]
    assert all(isinstance(value, float) for value in got)
    rate = trl_reward(server.url, tokens[0][0], reward="pass-rate")
    partial = "\n".join(geometry_task.imports) + "\n\n" + geometry_task.ground_truth_class.replace("abs(", "2 * abs(")
    (fraction,) = rate(completions=[f"```python\n{partial}\n```"], instance_id=[geometry_task.task_id])
    assert 0.0 < fraction < 1.0
    with pytest.raises(KeyError, match="instance_id"):
        reward(completions=["x"], prompts=["p"])


def test_verl_compute_score(server, tokens, ledger_instances, tmp_path, monkeypatch):
    assert list(inspect.signature(compute_score).parameters) == [
        "data_source",
        "solution_str",
        "ground_truth",
        "extra_info",
    ]
    assert inspect.signature(compute_score).parameters["extra_info"].default is None
    one = ledger_instances["Ledger-1"]
    token_file = tmp_path / "token"
    token_file.write_text(tokens[0][0] + "\n")
    monkeypatch.setenv("BENCHSMITH_SERVE_URL", server.url)
    monkeypatch.setenv("BENCHSMITH_SERVE_TOKEN_FILE", str(token_file))
    monkeypatch.delenv("BENCHSMITH_SERVE_TOKEN", raising=False)
    solved = f"<think>pad it</think>\n```java\n{one.fixed_method}\n```"
    assert compute_score("benchsmith/nl2fix", solved, "Ledger-1") == 1.0  # the instance id as ground_truth
    assert compute_score("benchsmith/nl2fix", one.buggy_method, "", extra_info={"instance_id": "Ledger-1"}) == 0.0
    bound = verl_reward(server.url, tokens[0][0])
    assert bound("benchsmith/nl2fix", solved, "", {"instance_id": "Ledger-1", "index": 3}) == 1.0
    monkeypatch.delenv("BENCHSMITH_SERVE_URL")
    with pytest.raises(RuntimeError, match="BENCHSMITH_SERVE_URL"):
        compute_score("d", "x", "Ledger-1")


def test_extract_code():
    assert extract_code("a\n```java\nint f() {}\n```\nb\n```\nint g() {}\n```") == "int g() {}\n"
    assert extract_code([{"role": "user", "content": "q"}, {"role": "assistant", "content": "plain"}]) == "plain"
    assert extract_code("no fence") == "no fence"
    assert rewards.FENCE.pattern
