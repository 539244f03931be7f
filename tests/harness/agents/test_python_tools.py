"""The six repository tools (RepoClassBench paper, Table 2, appendix F) on Python classbench tasks, and proof that the
removed
class and its directive tests are out of their reach."""

import os
import re
import textwrap
from pathlib import Path

import pytest

from benchsmith.benchmarks.classbench.python import visible_repository_of
from benchsmith.core.schema import ClassBenchTask, read_records
from benchsmith.generation.agents.python.tools import python_toolbox, undefined_names

GOLDEN = Path(__file__).parent.parent.parent / "golden" / "agents"


@pytest.fixture(scope="module")
def geometry_task(geometry_dataset) -> ClassBenchTask:
    (task,) = read_records(geometry_dataset, ClassBenchTask)
    return task


@pytest.fixture(scope="module")
def geometry_tools(geometry_task):
    return python_toolbox(
        geometry_task,
        visible_repository_of(geometry_task),
        description="A closed polygon of points: its perimeter, area and label.",
    )


FIRST_ATTEMPT = """\
class Polygon:
    def __init__(self, points: List[Point], name: str = DEFAULT_NAME) -> None:
        self.points = points
        self.name = name

    def perimeter(self) -> float:
        return sum(distance(a, b) for a, b in zip(self.points, self.points[1:]))

    def opacity(self, value):
        return clamp(value, 0.0, 1.0) if math.isfinite(value) else Unknown
"""

GEOMETRY_CALLS = [
    ("get_related_snippets", {}),
    ("get_related_snippets", {"query": "clamp a value between low and high"}),
    ("get_imports", {}),
    ("get_class_info", {"class_name": "Point"}),
    ("get_class_info", {"class_name": "Polygon"}),
    ("get_signature", {"class_name": "Point", "method_name": "scaled"}),
    ("get_signature", {"class_name": None, "method_name": "distance"}),
    ("get_signature", {"class_name": "Point", "method_name": "area"}),
    ("get_method_body", {"class_name": "Length", "method_name": "bounded"}),
    ("get_method_body", {"class_name": None, "method_name": "clamp"}),
    ("get_relevant_code", {"search_string": "distance between two points"}),
    ("get_class_info", {}),
    ("no_such_tool", {}),
]


def test_geometry_tools_match_golden(geometry_tools):
    geometry_tools.attempt(FIRST_ATTEMPT)
    answers = []
    for name, arguments in GEOMETRY_CALLS:
        answer = geometry_tools.call(name, arguments, thought="I need the points' coordinates")
        answers.append(f"===== {name} {arguments}\n{answer}\n")
    text = "\n".join(answers)
    path = GOLDEN / "geometry-tools.txt"
    if os.environ.get("UPDATE_GOLDEN"):
        path.write_text(text)
    assert text == path.read_text()


def test_tools_describe_themselves(geometry_tools):
    assert sorted(geometry_tools.tools) == [
        "get_class_info",
        "get_imports",
        "get_method_body",
        "get_related_snippets",
        "get_relevant_code",
        "get_signature",
    ]
    assert [n for n, t in geometry_tools.tools.items() if t.independent] == ["get_related_snippets"]
    for tool in geometry_tools.tools.values():
        assert tool.parameters["type"] == "object" and set(tool.parameters["required"]) <= set(
            tool.parameters["properties"]
        )


def test_get_imports_before_any_attempt_and_on_a_broken_one(geometry_task):
    tools = python_toolbox(geometry_task, visible_repository_of(geometry_task))
    assert "no attempt yet" in tools.call("get_imports", {})
    tools.attempt("class Polygon(:\n")
    assert tools.call("get_imports", {}).startswith("The current attempt does not parse")


def test_undefined_names_follow_python_scoping():
    code = textwrap.dedent("""\
        import os
        X = 1
        class A(Base):
            y = helper(X)
            def f(self, a):
                b = [c for c in a if c in os.environ]
                def inner():
                    return b + missing
                return inner, len(a), Other
    """)
    assert undefined_names(code) == ["Base", "helper", "missing", "Other"]


def _unique_lines(text: str, visible: str) -> list[str]:
    """The lines of *text* (stripped, long enough to mean something) that the visible repository does not hold;
    import statements aside, which get_imports rightly writes from the visible modules' definitions."""
    lines = {line.strip() for line in text.splitlines() if not line.strip().startswith(("from ", "import "))}
    return sorted(line for line in lines if len(line) >= 12 and line not in visible)


def _queries(ground_truth: str) -> list[str]:
    lines = [line.strip() for line in ground_truth.splitlines() if line.strip()]
    return [ground_truth, *lines, " ".join(lines[:8])]


def assert_unreachable(tools, task: ClassBenchTask, extra_classes: list[str] = (), relatives: bool = True) -> int:
    """Every tool, with every reasonable argument, never shows a line of the removed class (or of the directive test
    files) that the visible repository does not hold, nor names a directive test file. Returns the calls made."""
    visible = visible_repository_of(task, relatives=relatives)
    visible_text = "\n".join(visible.files.values())
    directive_files = sorted({d.split("::", 1)[0] for d in task.test_directives})
    secret = _unique_lines(task.ground_truth_class, visible_text)
    for path in directive_files:
        secret += _unique_lines((visible.repo.tree / path).read_text(), visible_text)
    assert secret, "the check would be empty"
    methods = sorted(set(re.findall(r"def (\w+)", task.ground_truth_class)))
    classes = [task.class_name, task.module + "." + task.class_name, *extra_classes]
    calls = [("get_related_snippets", {}), ("get_imports", {})]
    calls += [("get_related_snippets", {"query": q}) for q in _queries(task.ground_truth_class)]
    calls += [("get_relevant_code", {"search_string": q}) for q in _queries(task.ground_truth_class)]
    for class_name in [*classes, None]:
        calls.append(("get_class_info", {"class_name": class_name}))
        for method in methods:
            calls.append(("get_signature", {"class_name": class_name, "method_name": method}))
            calls.append(("get_method_body", {"class_name": class_name, "method_name": method}))
    tools.attempt(task.ground_truth_class)  # the model wrote the class itself: imports still come from elsewhere
    for name, arguments in calls:
        answer = tools.call(name, arguments, thought=task.ground_truth_class)
        assert not [line for line in secret if line in answer], (name, arguments, answer)
        assert not [path for path in directive_files if path in answer], (name, arguments, answer)
        assert f"class {task.class_name}" not in answer, (name, arguments, answer)
    return len(calls)


def test_the_removed_class_and_its_tests_are_unreachable(geometry_task, geometry_tools):
    assert assert_unreachable(geometry_tools, geometry_task, extra_classes=["Point", "Length"]) > 40


class CountingEmbedder:
    """The real MiniLM embedder, counting the texts it is asked to embed."""

    def __init__(self, own_cache: str = "") -> None:
        from benchsmith.generation.models.embeddings import get_embedder

        self.inner = get_embedder("minilm")
        # *own_cache*: a cache folder of its own (the cache is named after the revision), so every text counts
        self.name, self.model, self.revision = self.inner.name, self.inner.model, self.inner.revision + own_cache
        self.embedded = 0

    def embed(self, texts):
        self.embedded += len(texts)
        return self.inner.embed(texts)


def test_embeddings_are_cached_across_calls_and_toolboxes(geometry_task):
    embedder = CountingEmbedder()
    tools = python_toolbox(geometry_task, visible_repository_of(geometry_task), embedder=embedder)
    first = tools.call("get_related_snippets", {"query": "a never seen query about hexagons"})
    after_first = embedder.embedded
    assert tools.call("get_related_snippets", {"query": "a never seen query about hexagons"}) == first
    again = python_toolbox(geometry_task, visible_repository_of(geometry_task), embedder=embedder)
    assert again.call("get_related_snippets", {"query": "a never seen query about hexagons"}) == first
    assert embedder.embedded == after_first  # nothing embedded twice, not even by a new toolbox


def test_get_relevant_code_embeds_no_snippet_a_second_time(geometry_task, tmp_path):
    from benchsmith.generation.agents.python.tools import PythonTools

    embedder = CountingEmbedder(own_cache=f"-{tmp_path.name}")
    tools = PythonTools(geometry_task, visible_repository_of(geometry_task), embedder, "a shape")
    tools.related_snippets()
    assert embedder.embedded == len({s.text for s in tools.snippets}) + 1  # the snippets, and the query
    tools.relevant_code("distance between two points")
    own = {*tools._structures[: len(tools._structures) - len(tools.snippets)]}  # the classes' and functions' texts
    assert embedder.embedded == len({s.text for s in tools.snippets}) + 1 + len(own) + 1
    assert tools._structures[-1] == tools.snippets[-1].render()  # shown with its file and lines


def test_long_bodies_are_truncated():
    from benchsmith.generation.agents.python.tools import truncated

    source = "def f():\n" + "".join(f"    x{i} = {i}\n" for i in range(100))
    text = truncated(source)
    assert text.splitlines()[59] == "    x58 = 58" and text.endswith("# ... (41 more lines truncated)")
    assert truncated("def g():\n    return 1") == "def g():\n    return 1"
