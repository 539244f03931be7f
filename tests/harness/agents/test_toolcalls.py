"""Reading tool calls: the paper's Thought/Action text and the OpenAI tools API's calls, mistakes included."""

from __future__ import annotations

from benchsmith.generation.agents.toolcalls import describe_tools, from_openai, from_text, openai_tools
from benchsmith.generation.models.base import ToolCall
from tests.helpers.toy_agents import polygon_task, toolbox

TOOLS = toolbox(polygon_task()).tools


def read(answer: str) -> list[tuple]:
    return [(c.name, c.arguments, c.thought, c.error) for c in from_text(answer, TOOLS)]


def test_actions_with_bare_quoted_keyword_and_none_arguments_and_the_thought_before_them():
    answer = (
        "Thought 1: Item has no price;\nthe members will say.\n**Action 1:** get_class_info(Point)\n"
        "Action 2: get_signature('Point', method_name=\"moved\")\nAction 3: `get_imports()`\n"
        "Thought 3: done\nAction 4: get_signature(None, distance)"
    )
    assert read(answer) == [
        ("get_class_info", {"class_name": "Point"}, "Item has no price; the members will say.", ""),
        (
            "get_signature",
            {"class_name": "Point", "method_name": "moved"},
            "Item has no price; the members will say.",
            "",
        ),
        ("get_imports", {}, "Item has no price; the members will say.", ""),
        ("get_signature", {"class_name": None, "method_name": "distance"}, "done", ""),
    ]


def test_mistakes_in_text_become_errors_for_the_model():
    assert read("Action: look at Point") == [
        ("", {}, "", "could not read the action 'look at Point': write it as tool_name(argument, ...)")
    ]
    assert read("Action: get_class_info(Point, moved)")[0][3] == "get_class_info takes class_name; got 2 arguments"
    assert read("Action: get_signature(Point)")[0][3] == "get_signature needs method_name"
    assert read("Action: get_class_info('Point)")[0][3].endswith("an unclosed quote")
    assert read("Action: get_related_snippets()")[0][3].startswith(
        "unknown tool 'get_related_snippets'"
    )  # runs unasked
    assert read("Action: get_class_info(class_name=Point, Item)")[0][3].endswith(
        "a positional argument after a keyword argument"
    )
    assert read("No actions here.") == []


def test_openai_calls_are_read_and_their_mistakes_named():
    calls = from_openai(
        (
            ToolCall("1", "get_class_info", '{"class_name": "Point"}'),
            ToolCall("2", "get_imports", ""),
            ToolCall("3", "get_imports", "[1]"),
            ToolCall("4", "get_imports", "{"),
        ),
        "why",
        TOOLS,
    )
    assert [(c.call_id, c.arguments, c.error[:41]) for c in calls] == [
        ("1", {"class_name": "Point"}, ""),
        ("2", {}, ""),
        ("3", {}, "the arguments of get_imports must be a JS"),
        ("4", {}, "the arguments of get_imports are not JSON"),
    ]
    assert all(c.thought == "why" for c in calls)


def test_the_dependent_tools_are_offered_and_listed():
    assert [t["function"]["name"] for t in openai_tools(TOOLS)] == ["get_imports", "get_class_info", "get_signature"]
    assert describe_tools(TOOLS).splitlines() == [
        "(1) get_imports(): import statements for the undefined symbols of the latest attempt",
        "(2) get_class_info(class_name): the members of a class",
        "(3) get_signature(class_name, method_name): the signature of a method",
    ]
