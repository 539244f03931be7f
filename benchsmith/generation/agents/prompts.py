"""The agents' prompts (RepoClassBench paper, appendix G): initial generation, tool invocation, reflection, improved
generation.

Each prompt opens with a few-shot question in the task's language, read from
``templates/agent-shot-<language>.txt`` (sections after ``@@ NAME`` lines).
"""

from __future__ import annotations

import functools

from benchsmith.core.errors import BenchsmithError
from benchsmith.generation.agents.base import AgentTask
from benchsmith.generation.models.base import Message
from benchsmith.generation.prompts.renderer import TEMPLATES, prompt_hash, render, template_body

AGENT_TEMPLATES = ("agent-initial", "agent-tools", "agent-reflect", "agent-improve")
_WITH_CONTEXT = (
    "Below are some potentially relevant pieces of information.\n{observations}\n"
    "Based on the above, generate the following class"
)
_WITHOUT_CONTEXT = "Generate the following class"
NO_TOOL_OUTPUT = "(no tool was called)"


@functools.cache
def shot(language: str) -> dict[str, str]:
    """The few-shot question for *language*, by section name."""
    name = f"agent-shot-{language}"
    if not (TEMPLATES / f"{name}.txt").is_file():
        raise BenchsmithError(f"the agents have no few-shot example for {language} (no {TEMPLATES / name}.txt)")
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in template_body(name).split("\n"):
        if line.startswith("@@ "):
            current = sections.setdefault(line[3:].strip(), [])
        elif current is not None:
            current.append(line)
    return {key: "\n".join(lines).strip("\n") for key, lines in sections.items()}


def templates_of(language: str) -> tuple[str, ...]:
    return (*AGENT_TEMPLATES, "classbench-basic", f"agent-shot-{language}")


def agents_prompt_hash(language: str) -> str:
    """What prompt text an agent run used: every agent template and the language's few-shot example."""
    shot(language)  # a language without an example is an error here, before any request
    return prompt_hash(templates_of(language))


def basic(task: AgentTask) -> tuple[Message, ...]:
    """BASICPROMPTING and REFLEXION's first attempt: the description alone (the existing classbench prompt)."""
    return (
        Message(
            "user",
            render("classbench-basic", FILE_PATH=task.file_path, DESCRIPTION=task.description, LANGUAGE=task.language),
        ),
    )


def initial(task: AgentTask, snippets: str) -> tuple[Message, ...]:
    example = shot(task.language)
    return (
        Message(
            "user",
            render(
                "agent-initial",
                LANGUAGE=task.language,
                SHOT_SNIPPETS=example["SNIPPETS"],
                SHOT_FILE_PATH=example["FILE_PATH"],
                SHOT_DESCRIPTION=example["DESCRIPTION"],
                SHOT_CODE=example["CODE"],
                SNIPPETS=snippets or "(none)",
                FILE_PATH=task.file_path,
                DESCRIPTION=task.description,
            ),
        ),
    )


def tool_invocation(task: AgentTask, previous: str, feedback: str, tools: str, tool_names: str) -> tuple[Message, ...]:
    """*tools*: the numbered list of the dependent tools; *tool_names*: their call shapes on one line."""
    example = shot(task.language)
    return (
        Message(
            "user",
            render(
                "agent-tools",
                LANGUAGE=task.language,
                TOOLS=tools,
                TOOL_NAMES=tool_names,
                SHOT_FILE_PATH=example["FILE_PATH"],
                SHOT_DESCRIPTION=example["DESCRIPTION"],
                SHOT_PREVIOUS=example["PREVIOUS"],
                SHOT_FEEDBACK=example["FEEDBACK"],
                SHOT_TOOL_USAGE=example["TOOL_USAGE"],
                FILE_PATH=task.file_path,
                DESCRIPTION=task.description,
                PREVIOUS=previous,
                FEEDBACK=feedback,
            ),
        ),
    )


def reflection(task: AgentTask, previous: str, feedback: str, observations: str | None) -> tuple[Message, ...]:
    """*observations* None: no repository context at all (REFLEXION), in the example too."""
    return (Message("user", render("agent-reflect", **_retry_fields(task, previous, feedback, observations))),)


def improvement(
    task: AgentTask, previous: str, feedback: str, observations: str | None, reflection_text: str
) -> tuple[Message, ...]:
    fields = _retry_fields(task, previous, feedback, observations)
    fields.update(SHOT_CODE=shot(task.language)["CODE"], REFLECTION=reflection_text or "(none)")
    return (Message("user", render("agent-improve", **fields)),)


def _retry_fields(task: AgentTask, previous: str, feedback: str, observations: str | None) -> dict[str, str]:
    """What the reflection and the improvement prompts share: the worked example's previous attempt, its feedback
    and reflection, and the task's own attempt and feedback."""
    example = shot(task.language)
    return dict(
        LANGUAGE=task.language,
        SHOT_CONTEXT=_context(example["OBSERVATIONS"], observations),
        SHOT_FILE_PATH=example["FILE_PATH"],
        SHOT_DESCRIPTION=example["DESCRIPTION"],
        SHOT_PREVIOUS=example["PREVIOUS"],
        SHOT_FEEDBACK=example["FEEDBACK"],
        SHOT_REFLECTION=example["REFLECTION"],
        CONTEXT=_context(observations, observations),
        FILE_PATH=task.file_path,
        DESCRIPTION=task.description,
        PREVIOUS=previous,
        FEEDBACK=feedback,
    )


def _context(observations: str | None, present: str | None) -> str:
    """The observations block, or (for an agent without repository context, *present* None) the bare heading."""
    if present is None:
        return _WITHOUT_CONTEXT
    return _WITH_CONTEXT.replace("{observations}", observations or NO_TOOL_OUTPUT)
