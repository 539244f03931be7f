"""RepoClassBench prompts (RepoClassBench paper): the basic class-generation prompt and the description prompts."""

from __future__ import annotations

from benchsmith.core.errors import BenchsmithError
from benchsmith.core.schema import ClassBenchTask
from benchsmith.generation.models.base import Message
from benchsmith.generation.prompts.renderer import render

DESCRIPTION_LEVELS = ("detailed", "sketchy")


def basic(task: ClassBenchTask, level: str = "detailed") -> tuple[Message, ...]:
    """The RepoClassBench paper's BASICPROMPTING: the task's DETAILED or SKETCHY description and its file; the answer is
    the class."""
    description = _description(task, level)
    text = render("classbench-basic", FILE_PATH=task.file_path, DESCRIPTION=description, LANGUAGE=task.language)
    return (Message("user", text),)


def describe(task: ClassBenchTask, level: str) -> tuple[Message, ...]:
    """The prompt that asks for the task's DETAILED or SKETCHY natural language description, from its metadata."""
    _check_level(level)
    metadata = task.detailed_metadata if level == "detailed" else task.sketchy_metadata
    if not metadata.strip():
        raise BenchsmithError(f"{task.task_id}: no {level} metadata to describe")
    text = render("describe", LANGUAGE=task.language.capitalize(), METADATA=metadata, CLASS_NAME=task.class_name)
    return (Message("user", text),)


def task_description(task: ClassBenchTask, level: str) -> str:
    """The task's DETAILED or SKETCHY description; an empty one is an error saying to describe the dataset."""
    return _description(task, level)


def _description(task: ClassBenchTask, level: str) -> str:
    _check_level(level)
    description = task.detailed_description if level == "detailed" else task.sketchy_description
    if not description.strip():
        raise BenchsmithError(
            f"{task.task_id}: the {level} description is empty; run `benchsmith describe` on the dataset first"
        )
    return description


def _check_level(level: str) -> None:
    if level not in DESCRIPTION_LEVELS:
        raise BenchsmithError(f"description level {level!r} is not one of {', '.join(DESCRIPTION_LEVELS)}")
