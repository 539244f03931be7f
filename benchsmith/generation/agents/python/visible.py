"""A Python classbench task's repository as the model may see it, and an index of its classes and functions.

The visible tree is the task's public view (``benchsmith.runners.python.public_view``: the class
and the imports only it used removed) without the files of its EXPECTED_TO_PASS
tests, without the removed-class sentinel, and, when relatives are left out
(RepoClassBench paper, RQ2), without the relatives' classes. It is written to a cache
folder of its own, holding Python files only, so that jedi (which reads files
from disk) sees exactly what the model may see and nothing else: every tool
reads this tree, never the pristine one or the view.

The index (libcst) holds every class, module-level or nested, with its members,
and every module-level function, with their exact source and positions.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
from dataclasses import dataclass, field
from pathlib import Path

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from benchsmith.core.atomic import build_folder_atomic
from benchsmith.core.config import cache_dir
from benchsmith.core.errors import BenchsmithError
from benchsmith.core.schema import ClassBenchTask
from benchsmith.sources.python.removal import SENTINEL, remove_class
from benchsmith.sources.python.repo import Repository

VISIBLE_FORMAT = 1
_SOURCE_SUFFIXES = (".py", ".pyi")


@dataclass
class FunctionEntry:
    name: str
    qualname: str  # dotted, module included: geometry.util.clamp, geometry.shapes.Point.scaled
    signature: str  # "def f(a: int) -> str:" without decorators
    decorators: list[str]
    source: str  # the whole definition, decorators included
    docstring: str
    line: int  # of the ``def``

    @property
    def is_static(self) -> bool:
        return "@staticmethod" in self.decorators

    @property
    def is_classmethod(self) -> bool:
        return "@classmethod" in self.decorators

    @property
    def is_abstract(self) -> bool:
        return any(d.split("(")[0].endswith("abstractmethod") for d in self.decorators)

    @property
    def is_property(self) -> bool:
        return any(
            d == "@property" or d.endswith((".setter", ".getter", ".deleter", "cached_property"))
            for d in self.decorators
        )


@dataclass
class ClassEntry:
    path: Path  # absolute: a file of the visible tree, or of the environment (an external class)
    module: str
    name: str
    qualname: str  # dotted, module included
    line: int  # of the ``class`` keyword
    header: str  # "class A(B):"
    decorators: list[str]
    docstring: str
    bases: list[tuple[str, int, int]]  # (expression, line, column of its last name) for jedi's goto
    methods: list[FunctionEntry] = field(default_factory=list)
    class_variables: list[str] = field(default_factory=list)  # "x = 1", "y: int"
    instance_variables: list[str] = field(default_factory=list)  # "self.x" assigned in any method, in order
    source: str = ""

    def stripped(self) -> str:
        """The class with every method's body replaced by ``...`` (what get_relevant_code embeds and shows)."""
        lines = [*self.decorators, self.header]
        if self.docstring:
            lines.append(f'    """{self.docstring}"""')
        lines += [f"    {v}" for v in self.class_variables]
        for method in self.methods:
            lines += [f"    {d}" for d in method.decorators]
            lines += ["    " + line for line in method.signature.splitlines()] + ["        ..."]
        return "\n".join(lines)


@dataclass
class ModuleIndex:
    classes: list[ClassEntry]
    functions: list[FunctionEntry]  # module-level only
    imports: list[tuple[str, str]]  # (bound name, absolute import statement)


class _Indexer(cst.CSTVisitor):
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, module: cst.Module, path: Path, dotted: str) -> None:
        self.module, self.path, self.dotted = module, path, dotted
        self.scope: list[tuple[str, ClassEntry | None]] = []  # (name, the class when the scope is one)
        self.index = ModuleIndex([], [], [])

    def _code(self, node: cst.CSTNode) -> str:
        return self.module.code_for_node(node)

    def _qualname(self, name: str) -> str:
        return ".".join([self.dotted, *(n for n, _ in self.scope), name]) if self.dotted else name

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        bases = []
        for arg in node.bases:
            last = arg.value.attr if isinstance(arg.value, cst.Attribute) else arg.value
            position = self.get_metadata(PositionProvider, last).start
            bases.append((self._code(arg.value), position.line, position.column))
        header = (
            f"class {node.name.value}"
            + (f"({', '.join(self._code(a).strip().rstrip(',') for a in node.bases)})" if node.bases else "")
            + ":"
        )
        entry = ClassEntry(
            self.path,
            self.dotted,
            node.name.value,
            self._qualname(node.name.value),
            self.get_metadata(PositionProvider, node.name).start.line,
            header,
            [f"@{self._code(d.decorator)}" for d in node.decorators],
            node.get_docstring() or "",
            bases,
            source=self._code(node).strip("\n"),
        )
        for statement in node.body.body:
            if isinstance(statement, cst.SimpleStatementLine):
                for small in statement.body:
                    if isinstance(small, (cst.Assign, cst.AnnAssign)):
                        entry.class_variables.append(self._code(small).strip())
        self.index.classes.append(entry)
        self.scope.append((node.name.value, entry))
        return True

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self.scope.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        owner = self.scope[-1][1] if self.scope else None
        if self.scope and owner is None:  # a function inside a function: not a member of anything
            self.scope.append((node.name.value, None))
            return True
        header = node.with_changes(
            body=cst.IndentedBlock([cst.SimpleStatementLine([cst.Expr(cst.Ellipsis())])]),
            decorators=[],
            leading_lines=[],
        )
        signature = self._code(header).strip().rsplit("\n", 1)[0].strip()
        entry = FunctionEntry(
            node.name.value,
            self._qualname(node.name.value),
            signature,
            [f"@{self._code(d.decorator)}" for d in node.decorators],
            self._code(node.with_changes(leading_lines=[])).strip("\n"),
            node.get_docstring() or "",
            self.get_metadata(PositionProvider, node.name).start.line,
        )
        if owner is not None:
            owner.methods.append(entry)
            self._instance_variables(node, owner)
        else:
            self.index.functions.append(entry)
        self.scope.append((node.name.value, None))
        return True

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.scope.pop()

    def _instance_variables(self, node: cst.FunctionDef, owner: ClassEntry) -> None:
        def record(target: cst.BaseExpression) -> None:
            if (
                isinstance(target, cst.Attribute)
                and isinstance(target.value, cst.Name)
                and target.value.value == "self"
            ):
                name = f"self.{target.attr.value}"
                if name not in owner.instance_variables:
                    owner.instance_variables.append(name)

        class Assignments(cst.CSTVisitor):
            def visit_AssignTarget(self, target: cst.AssignTarget) -> None:
                record(target.target)

            def visit_AnnAssign(self, assign: cst.AnnAssign) -> None:
                record(assign.target)

        node.body.visit(Assignments())

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        if self.scope or isinstance(node.names, cst.ImportStar):
            return False
        level = len(node.relative)
        source = self._code(node.module) if node.module else ""
        if level:  # relative to this module's package: written absolute, as a model would import it
            package = self.dotted.split(".")
            package = package[: len(package) - level + (1 if self.path.name == "__init__.py" else 0)]
            source = ".".join(p for p in [*package, source] if p)
        for alias in node.names:
            name = self._code(alias.name)
            bound = alias.asname.name.value if alias.asname else name
            self.index.imports.append(
                (bound, f"from {source} import {name}" + (f" as {bound}" if alias.asname else ""))
            )
        return False

    def visit_Import(self, node: cst.Import) -> bool:
        if self.scope:
            return False
        for alias in node.names:
            name = self._code(alias.name)
            bound = alias.asname.name.value if alias.asname else name.split(".")[0]
            self.index.imports.append((bound, f"import {name}" + (f" as {bound}" if alias.asname else "")))
        return False


def index_module(text: str, path: Path, dotted: str) -> ModuleIndex:
    """Classes, module-level functions and import bindings of one module's *text* (empty when it does not parse)."""
    index = _index_text(text, dotted, path.name)  # the tasks of one repository share most modules: each is indexed once
    return ModuleIndex([dataclasses.replace(c, path=path) for c in index.classes], index.functions, index.imports)


@functools.lru_cache(maxsize=4096)
def _index_text(text: str, dotted: str, file_name: str) -> ModuleIndex:
    try:
        # Parsed here and visited once: the wrapper need not copy the tree (the copy was a third of the time).
        wrapper = MetadataWrapper(cst.parse_module(text), unsafe_skip_copy=True)
    except (cst.ParserSyntaxError, RecursionError):
        return ModuleIndex([], [], [])
    indexer = _Indexer(wrapper.module, Path(file_name), dotted)  # relative imports need only the file's name
    wrapper.visit(indexer)
    return indexer.index


@dataclass
class VisibleRepository:
    repo: Repository
    root: Path  # the visible tree: Python files only
    files: dict[str, str]  # relative path -> text, as the model may see it
    modules: dict[str, ModuleIndex]  # relative path -> its index
    left_out: list[str]  # the directive test files, and "<module>.<class>" of relatives removed

    def module_name(self, rel: str) -> str:
        return dotted_module(rel, self.repo.import_root)

    @property
    def classes(self) -> list[ClassEntry]:
        return [c for m in self.modules.values() for c in m.classes]

    @property
    def functions(self) -> list[FunctionEntry]:
        return [f for m in self.modules.values() for f in m.functions]


def dotted_module(rel: str, import_root: str) -> str:
    """``src/a/b.py`` -> ``a.b`` under import root ``src``; a file outside the import root keeps its whole path."""
    path = Path(rel).with_suffix("")
    if import_root and path.is_relative_to(import_root):
        path = path.relative_to(import_root)
    parts = list(path.parts)
    if parts and parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def visible_repository(task: ClassBenchTask, repo: Repository, view: Path, relatives: bool = True) -> VisibleRepository:
    """The task's repository as the model may see it, built once into the cache and indexed: *view* is the task's
    public view of *repo* (the tree candidates run in, which the benchmark makes), less the directives' test files."""
    if task.language != "python":
        raise BenchsmithError(f"{task.task_id}: the Python repository tools serve Python tasks, not {task.language}")
    tests = sorted({d.split("::", 1)[0] for d in task.test_directives})
    files: dict[str, str] = {}
    for path in sorted(view.rglob("*")):
        rel = path.relative_to(view).as_posix()
        if path.suffix in _SOURCE_SUFFIXES and path.is_file() and not path.is_symlink() and rel not in tests:
            text = path.read_text(encoding="utf-8", errors="surrogateescape")
            files[rel] = text.replace(SENTINEL + "\n", "").replace(SENTINEL, "")
    left_out = list(tests)
    if not relatives:
        for relative in task.relatives:
            module, _, name = relative.rpartition(".")
            for rel in [r for r in files if dotted_module(r, repo.import_root) == module]:
                try:
                    files[rel] = remove_class(files[rel], name, rel).text.replace(SENTINEL + "\n", "")
                    left_out.append(relative)
                except BenchsmithError:
                    pass  # not a module-level class of that file (paraphrased, moved): nothing to remove there
    root = _write_tree(repo, task, files)
    modules = {rel: index_module(text, root / rel, dotted_module(rel, repo.import_root)) for rel, text in files.items()}
    return VisibleRepository(repo, root, files, modules, left_out)


def _write_tree(repo: Repository, task: ClassBenchTask, files: dict[str, str]) -> Path:
    digest = hashlib.sha256(f"{VISIBLE_FORMAT}\0{repo.key}\0{task.task_id}\0".encode())
    for rel, text in files.items():
        digest.update(f"{rel}\0{len(text)}\0".encode() + text.encode("utf-8", errors="surrogateescape"))
    folder = cache_dir("agents", "visible")
    target = folder / f"{repo.key}-{task.class_name}-{digest.hexdigest()[:16]}"

    def build(tree: Path) -> None:
        for rel, text in files.items():
            (tree / rel).parent.mkdir(parents=True, exist_ok=True)
            (tree / rel).write_text(text, encoding="utf-8", errors="surrogateescape")

    return build_folder_atomic(target, build)
