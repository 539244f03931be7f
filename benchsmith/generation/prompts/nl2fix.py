"""NL2Fix prompts (Defects4J-NL2Fix paper, section 3.3): zero-shot, title-only, one-shot and reasoning extraction.

Every prompt shows the comment-free buggy method, as the paper does.
"""

from __future__ import annotations

from collections.abc import Sequence

from rapidfuzz.distance import Levenshtein

from benchsmith.core.errors import BenchsmithError
from benchsmith.core.schema import NL2FixInstance
from benchsmith.generation.models.base import Message
from benchsmith.generation.prompts.renderer import render
from benchsmith.sources.java.comments import strip_comments

# Reasoning extraction: localise the bug, explain it, then fix it; each turn continues the conversation.
REASONING_TURNS = ("reasoning-localise", "reasoning-explain", "reasoning-fix")


def zero_shot(instance: NL2FixInstance) -> tuple[Message, ...]:
    return (Message("user", _zero_shot_text(instance)),)


def title_only(instance: NL2FixInstance) -> tuple[Message, ...]:
    text = render("title-only", ISSUE_TITLE=instance.issue_title, BUGGY_METHOD=instance.buggy_method_no_comments)
    return (Message("user", text),)


def one_shot(instance: NL2FixInstance, shot: NL2FixInstance) -> tuple[Message, ...]:
    if shot.instance_id == instance.instance_id:
        raise ValueError(f"{instance.instance_id}: an instance cannot be its own shot")
    text = render(
        "one-shot",
        SHOT_ISSUE_TITLE=shot.issue_title,
        SHOT_ISSUE_DESCRIPTION=shot.issue_description,
        SHOT_BUGGY_METHOD=shot.buggy_method_no_comments,
        SHOT_FIXED_METHOD=strip_comments(shot.fixed_method),
        TASK=_zero_shot_text(instance),
    )
    return (Message("user", text),)


def reasoning(instance: NL2FixInstance, answers: Sequence[str] = ()) -> tuple[Message, ...]:
    """The conversation for the next reasoning turn, given the model's answers to the earlier turns.

    With no answers this is turn 1 (localise); with one, turn 2 (explain);
    with two, turn 3 (fix), whose answer is the candidate.
    """
    if len(answers) >= len(REASONING_TURNS):
        raise ValueError(
            f"{instance.instance_id}: reasoning has {len(REASONING_TURNS)} turns, got {len(answers)} answers"
        )
    first = render(
        "reasoning-localise",
        ISSUE_TITLE=instance.issue_title,
        ISSUE_DESCRIPTION=instance.issue_description,
        BUGGY_METHOD=instance.buggy_method_no_comments,
    )
    messages = [Message("user", first)]
    for turn, answer in enumerate(answers, start=1):
        messages.append(Message("assistant", answer))
        messages.append(Message("user", render(REASONING_TURNS[turn])))
    return tuple(messages)


def nearest_shots(instances: Sequence[NL2FixInstance]) -> dict[str, NL2FixInstance]:
    """For every instance, the other instance whose comment-free buggy method is nearest by Levenshtein distance.

    Ties go to the smallest instance_id, so the choice does not depend on the
    dataset's row order.
    """
    if len(instances) < 2:
        raise BenchsmithError(
            f"one-shot needs at least two instances to draw shots from, the dataset has {len(instances)}"
        )
    ordered = sorted(instances, key=lambda i: i.instance_id)
    best: dict[str, tuple[int, str]] = {}
    for a_index, a in enumerate(ordered):
        for b in ordered[a_index + 1 :]:
            distance = Levenshtein.distance(a.buggy_method_no_comments, b.buggy_method_no_comments)
            for this, other in ((a, b), (b, a)):
                if this.instance_id not in best or (distance, other.instance_id) < best[this.instance_id]:
                    best[this.instance_id] = (distance, other.instance_id)
    by_id = {i.instance_id: i for i in ordered}
    return {instance_id: by_id[other_id] for instance_id, (_, other_id) in best.items()}


def _zero_shot_text(instance: NL2FixInstance) -> str:
    return render(
        "zero-shot",
        ISSUE_TITLE=instance.issue_title,
        ISSUE_DESCRIPTION=instance.issue_description,
        BUGGY_METHOD=instance.buggy_method_no_comments,
    )
