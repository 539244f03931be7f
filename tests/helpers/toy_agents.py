"""A toy class benchmark with repository tools and an oracle, registered from this one module, for the agents' tests.

The repository is two small real Python modules (``geometry/points.py``: a
``Point`` class and a ``distance`` function); a task asks for a class that uses
them. The tools answer from those files with :mod:`ast` — a small real
toolbox, not the one under test elsewhere (tools15 builds the real six over
classbench repositories) — and the oracle runs the candidate with the
repository in a fresh interpreter and checks two assertions. The oracle is not
what these tests test: the agents are, and they see only the contract of
``benchsmith/generation/agents/base.py``. ``eval`` judges candidates with the same check.
"""

from __future__ import annotations

import ast
import builtins
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from benchsmith.benchmarks import (
    AgentOptions,
    Benchmark,
    CandidateRunner,
    EvalOptions,
    GenerationItem,
    ReferenceCandidate,
    register,
)
from benchsmith.core.verdict import Verdict
from benchsmith.generation.agents.base import AgentTask, Feedback, Tool, Toolbox
from benchsmith.generation.models.base import Message
from benchsmith.generation.prompts.extraction import extract_python_class

POINTS = textwrap.dedent('''\
    """Points of the plane."""
    import math


    class Point:
        """A point with coordinates x and y."""

        def __init__(self, x: float, y: float) -> None:
            self.x = x
            self.y = y

        def moved(self, dx: float, dy: float) -> "Point":
            return Point(self.x + dx, self.y + dy)


    def distance(a: Point, b: Point) -> float:
        """The Euclidean distance between two points."""
        return math.hypot(a.x - b.x, a.y - b.y)
    ''')
REPOSITORY = {"geometry/__init__.py": "", "geometry/points.py": POINTS}
POLYGON_CHECKS = (
    "from geometry.shapes import Polygon\n"
    "from geometry.points import Point\n"
    "triangle = Polygon([Point(0, 0), Point(3, 0), Point(3, 4)])\n"
    "assert len(triangle.points) == 3, 'Polygon keeps its points'\n"
    "assert triangle.perimeter() == 12, f'perimeter of the 3-4-5 triangle: {triangle.perimeter()}'\n"
)
POLYGON_GOLD = textwrap.dedent("""\
    from geometry.points import distance


    class Polygon:
        def __init__(self, points):
            self.points = list(points)

        def perimeter(self):
            return sum(distance(a, b) for a, b in zip(self.points, self.points[1:] + self.points[:1]))
    """)


@dataclass(frozen=True)
class ToyClassTask:
    task_id: str
    project: str
    file_path: str
    class_name: str
    description: str
    checks: str
    gold: str


def polygon_task(task_id: str = "toy::geometry/shapes.py::Polygon") -> ToyClassTask:
    return ToyClassTask(
        task_id,
        "toy",
        "geometry/shapes.py",
        "Polygon",
        "Polygon keeps a list of Points (its points attribute). perimeter() returns the sum of the "
        "distances between consecutive points, the last one joined to the first.",
        POLYGON_CHECKS,
        POLYGON_GOLD,
    )


class ToyClasses(Benchmark[ToyClassTask]):
    name = "toy-classes"
    record_type = ToyClassTask
    strategies = ("basic",)

    def instance_id(self, record: ToyClassTask) -> str:
        return record.task_id

    def project_of(self, record: ToyClassTask) -> str:
        return record.project

    def generation_items(
        self, records: list[ToyClassTask], strategy: str, description: str | None, dataset: Path
    ) -> tuple[list[GenerationItem], str]:
        return [
            GenerationItem(
                t.task_id,
                1,
                lambda answers, t=t: (Message("user", t.description),),
                lambda text, t=t: extract_python_class(text, t.class_name),
                "basic",
            )
            for t in records
        ], ""

    def dedup_key(self, code: str) -> str:
        return code.strip()

    def runners(self, options: EvalOptions) -> Callable[[ToyClassTask, int, Path], CandidateRunner]:
        return lambda task, slot, logs: _Runner(task)

    def reference_candidates(self, records: list[ToyClassTask], mutants: int, seed: int) -> list[ReferenceCandidate]:
        return [
            c
            for t in records
            for c in (
                ReferenceCandidate(t.task_id, "gold", t.gold),
                ReferenceCandidate(t.task_id, "empty", f"class {t.class_name}:\n    pass\n"),
            )
        ]

    def agent_task(self, record: ToyClassTask, description: str | None) -> AgentTask:
        return AgentTask(
            record.task_id,
            "python",
            record.file_path,
            record.class_name,
            record.description,
            lambda text: extract_python_class(text, record.class_name),
        )

    def agent_environment(self, record: ToyClassTask, options: AgentOptions) -> tuple[Toolbox, CheckOracle]:
        return toolbox(record), CheckOracle(record)


def run_checks(task: ToyClassTask, code: str) -> tuple[bool, str]:
    """The candidate in the repository, the checks in a fresh interpreter: (passed, the error's last lines)."""
    with tempfile.TemporaryDirectory(prefix="toy-oracle-") as folder:
        root = Path(folder)
        for path, text in {**REPOSITORY, task.file_path: code}.items():
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_text(text, encoding="utf-8")
        # -I keeps the user's site and environment out, and the script's folder off sys.path: put the repository on
        # it. The error is printed as "Type: message", which unlike a traceback's last line is the same in every
        # Python (no "Did you mean" suggestions), so pinned transcripts hold.
        check = (
            f"import sys\nsys.path.insert(0, {str(root)!r})\ntry:\n{textwrap.indent(task.checks, '    ')}\n"
            "except Exception as exc:\n    sys.exit(f'{type(exc).__name__}: {exc}')\n"
        )
        (root / "check.py").write_text(check, encoding="utf-8")
        ran = subprocess.run([sys.executable, "-I", "check.py"], cwd=root, capture_output=True, text=True, timeout=60)
    lines = ran.stderr.strip().splitlines()
    return ran.returncode == 0, "\n".join(lines[-1:])


class CheckOracle:
    def __init__(self, task: ToyClassTask) -> None:
        self.task = task
        self.calls = 0
        self.closed = False

    def judge(self, code: str) -> Feedback:
        self.calls += 1
        passed, error = run_checks(self.task, code)
        return Feedback(passed, True, int(passed), int(not passed), "" if passed else f"FAILED check.py - {error}")

    def close(self) -> None:
        self.closed = True


@dataclass
class _Runner:
    task: ToyClassTask

    def evaluate(self, code: str, name: str) -> Verdict:
        started = time.monotonic()
        passed, error = run_checks(self.task, code)
        return Verdict(
            "plausible" if passed else "wrong",
            compiled=True,
            tests_passed=int(passed),
            tests_failed=int(not passed),
            failing_tests=[] if passed else ["check.py"],
            reason=error,
            seconds=time.monotonic() - started,
        )

    def close(self) -> None:
        pass


# --- the toolbox ----------------------------------------------------------------------------------------------------


def _classes() -> dict[str, tuple[str, ast.ClassDef]]:
    found = {}
    for path, text in REPOSITORY.items():
        for node in ast.parse(text).body:
            if isinstance(node, ast.ClassDef):
                found[node.name] = (path, node)
    return found


def _functions() -> dict[str, str]:
    """Module-level functions and classes → the module that defines them."""
    found = {}
    for path, text in REPOSITORY.items():
        module = path.removesuffix(".py").replace("/", ".")
        for node in ast.parse(text).body:
            if isinstance(node, ast.FunctionDef | ast.ClassDef):
                found[node.name] = module
    return found


def toolbox(task: ToyClassTask) -> Toolbox:
    latest = {"code": ""}

    def related_snippets(thought: str = "", query: str | None = None) -> str:
        words = set((query or task.description).lower().replace(".", " ").split())
        ranked = sorted(REPOSITORY.items(), key=lambda item: (-len(words & set(item[1].lower().split())), item[0]))
        return "\n".join(f"# {path}\n{text.strip()}" for path, text in ranked if text)[:600]

    def class_info(class_name: str, thought: str = "") -> str:
        found = _classes().get(class_name)
        if found is None:
            return f"no class {class_name} in the repository"
        path, node = found
        lines = [f"class {class_name} ({path})"]
        for item in node.body:
            if isinstance(item, ast.FunctionDef):
                lines.append(f"    def {item.name}({ast.unparse(item.args)})")
                lines += [
                    f"    {ast.unparse(t)}: attribute"
                    for s in ast.walk(item)
                    if isinstance(s, ast.Assign)
                    for t in s.targets
                    if isinstance(t, ast.Attribute)
                ]
        return "\n".join(lines)

    def signature(class_name: str, method_name: str, thought: str = "") -> str:
        found = _classes().get(class_name)
        if found is None:
            return f"no class {class_name} in the repository"
        methods = [m for m in found[1].body if isinstance(m, ast.FunctionDef) and m.name == method_name]
        return (
            "\n".join(f"def {m.name}({ast.unparse(m.args)})" for m in methods)
            or f"no method {class_name}.{method_name}"
        )

    def imports(thought: str = "") -> str:
        try:
            tree = ast.parse(latest["code"])
        except SyntaxError as exc:
            return f"the latest attempt does not parse: {exc}"
        bound = {
            a.asname or a.name for n in ast.walk(tree) if isinstance(n, ast.Import | ast.ImportFrom) for a in n.names
        }
        bound |= {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.ClassDef)}
        bound |= {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        bound |= {a.arg for n in ast.walk(tree) if isinstance(n, ast.arguments) for a in n.args}
        used = sorted({n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)})
        undefined = [name for name in used if name not in bound and not hasattr(builtins, name)]
        known = _functions()
        lines = [
            f"{name}: from {known[name]} import {name}" if name in known else f"{name}: not defined in the repository"
            for name in undefined
        ]
        return "\n".join(lines) or "no undefined symbols"

    tools = {
        "get_related_snippets": Tool(
            "get_related_snippets",
            "snippets of the repository similar to the description",
            {"type": "object", "properties": {"query": {"type": "string"}}},
            related_snippets,
            independent=True,
        ),
        "get_imports": Tool(
            "get_imports",
            "import statements for the undefined symbols of the latest attempt",
            {"type": "object", "properties": {}},
            imports,
        ),
        "get_class_info": Tool(
            "get_class_info",
            "the members of a class",
            {"type": "object", "properties": {"class_name": {"type": "string"}}, "required": ["class_name"]},
            class_info,
        ),
        "get_signature": Tool(
            "get_signature",
            "the signature of a method",
            {
                "type": "object",
                "properties": {"class_name": {"type": "string"}, "method_name": {"type": "string"}},
                "required": ["class_name", "method_name"],
            },
            signature,
        ),
    }
    return Toolbox(tools, attempt=lambda code: latest.__setitem__("code", code))


TOY_CLASSES = register(ToyClasses())
