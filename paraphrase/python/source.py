"""A repository's Python files, parsed once with libcst and their metadata resolved.

Analysis and rewriting work on the same trees (``MetadataWrapper.module``), so
the analysis can hand the rewriter sets of nodes (compared by identity).
"""

from __future__ import annotations

import ast
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import libcst as cst
from libcst.metadata import (
    BaseAssignment,
    BuiltinAssignment,
    ExpressionContextProvider,
    ImportAssignment,
    MetadataWrapper,
    ParentNodeProvider,
    PositionProvider,
    ScopeProvider,
)

from benchsmith.core.errors import BenchsmithError

#: Folders that hold no repository source (VCS data, caches, environments), at any depth...
SKIP_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        ".tox",
        ".nox",
        ".venv",
        "venv",
        "__pycache__",
        ".eggs",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        "node_modules",
    }
)
#: ...and at the top of the repository only (stale copies of the sources a build left behind).
TOP_SKIP_DIRS = frozenset({"build", "dist"})


def skipped(folder: Path, root: Path, name: str) -> bool:
    return name in SKIP_DIRS or (name in TOP_SKIP_DIRS and folder == root)


PYTHON_SUFFIXES = (".py", ".pyi")
_PROVIDERS = (ScopeProvider, ParentNodeProvider, PositionProvider, ExpressionContextProvider)


@dataclass(eq=False)
class SourceFile:
    """One parsed Python file of the repository."""

    path: Path
    rel: str  # POSIX path relative to the repository root
    module: str  # dotted module name ("pkg.sub.mod"; "pkg" for pkg/__init__.py)
    is_package: bool  # an __init__ file: relative imports resolve inside the module itself
    is_test: bool
    wrapper: MetadataWrapper = field(repr=False)
    meta: dict[Any, Any] = field(repr=False)

    @property
    def tree(self) -> cst.Module:
        return self.wrapper.module

    @property
    def scopes(self):
        return self.meta[ScopeProvider]

    @property
    def parents(self):
        return self.meta[ParentNodeProvider]

    @property
    def contexts(self):
        return self.meta[ExpressionContextProvider]

    def qualified(self, node: cst.CSTNode) -> set[str]:
        """Qualified names of a name or attribute (``collections.abc.Mapping``, ``builtins.dict``)."""
        scope = self.scopes.get(node)
        if scope is None:
            return set()
        return {q.name for q in scope.get_qualified_names_for(node)}

    def line(self, node: cst.CSTNode) -> int:
        position = self.meta[PositionProvider].get(node)
        return position.start.line if position else 0

    def where(self, node: cst.CSTNode) -> str:
        return f"{self.rel}:{self.line(node)}"

    def parent(self, node: cst.CSTNode) -> cst.CSTNode | None:
        return self.parents.get(node)

    def bindings(self, node: cst.Name) -> set[BaseAssignment]:
        """What a name refers to: its scope's assignments (imports and builtins included)."""
        scope = self.scopes.get(node)
        if scope is None:
            return set()
        found: set[BaseAssignment] = set()
        for access in scope.accesses[node]:
            found.update(access.referents)
        return found or set(scope[node.value])


@dataclass(eq=False)
class ParsedRepository:
    """Every Python file of a source tree, parsed with libcst and its scope metadata (not
    benchsmith.sources.python.repo's
    Repository, which is a fetched tree with its environment)."""

    root: Path
    files: list[SourceFile]
    modules: dict[str, SourceFile]
    top_level: frozenset[str]  # first components of the repository's module names
    module_parts: frozenset[str]  # every component of every module name
    unparsable: tuple[str, ...] = ()  # files left out, unchanged, with load_repository(skip_unparsable=True)

    def is_repo_module(self, dotted: str) -> bool:
        return bool(dotted) and dotted.split(".")[0] in self.top_level

    def resolve_from(self, sf: SourceFile, node: cst.ImportFrom) -> tuple[str, bool]:
        """The absolute module an ``ImportFrom`` names and whether it is the repository's own."""
        module = cst.helpers.get_full_name_for_node(node.module) if node.module else ""
        if not node.relative:
            return module or "", self.is_repo_module(module or "")
        base = sf.module.split(".") if sf.is_package else sf.module.split(".")[:-1]
        up = len(node.relative) - 1
        base = base[: len(base) - up] if up else base
        return ".".join([*base, *([module] if module else [])]), True

    def is_repo_binding(self, sf: SourceFile, binding: BaseAssignment) -> bool:
        """A binding made by the repository's code (imports from its own modules included)."""
        if isinstance(binding, BuiltinAssignment):
            return False
        if not isinstance(binding, ImportAssignment):
            return True
        if isinstance(binding.node, cst.ImportFrom):
            return self.resolve_from(sf, binding.node)[1]
        for alias in binding.node.names:  # ``import pkg.mod as m`` binds m (or pkg) to a module
            dotted = cst.helpers.get_full_name_for_node(alias.name) or ""
            if (alias.evaluated_alias or dotted.split(".")[0]) == binding.name.split(".")[0]:
                return self.is_repo_module(dotted)
        return self.is_repo_module(binding.name)


def is_test_path(rel: str) -> bool:
    """Test files by the conventions pytest and unittest discover."""
    parts = rel.split("/")
    name = parts[-1]
    return (
        name.startswith("test_")
        or name.endswith("_test.py")
        or name == "conftest.py"
        or any(p in ("tests", "test", "testing") for p in parts[:-1])
    )


def iter_python_files(root: Path) -> list[Path]:
    found: list[Path] = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not skipped(Path(folder), root, d) and not d.endswith(".egg-info"))
        found.extend(Path(folder) / f for f in sorted(files) if f.endswith(PYTHON_SUFFIXES))
    return found


def package_module_name(root: Path, path: Path) -> tuple[str, bool]:
    """The dotted name a file is imported as: its stem plus the chain of enclosing packages (with ``__init__.py``)."""
    is_package = path.stem == "__init__"
    parts = [] if is_package else [path.stem]
    folder = path.parent
    while folder != root.parent and (folder / "__init__.py").is_file():
        parts.insert(0, folder.name)
        if folder == root:
            break
        folder = folder.parent
    return ".".join(parts) or path.parent.name, is_package


def parse_file(root: Path, path: Path) -> SourceFile:
    rel = path.relative_to(root).as_posix()
    try:
        tree = cst.parse_module(path.read_bytes())
    except (cst.ParserSyntaxError, cst.CSTValidationError) as exc:  # libcst also refuses what its nodes cannot hold
        line, message = getattr(exc, "editor_line", 0), getattr(exc, "message", str(exc))
        try:  # Python's own parser points at the offending line more precisely
            ast.parse(path.read_bytes())
        except SyntaxError as error:
            line, message = error.lineno or line, error.msg
        raise BenchsmithError(f"{rel}: does not parse as Python (line {line}: {message})") from None
    except (OSError, UnicodeDecodeError, LookupError, SyntaxError) as exc:  # SyntaxError: an unknown coding cookie
        raise BenchsmithError(f"{rel}: cannot be read ({exc})") from None
    wrapper = MetadataWrapper(tree, unsafe_skip_copy=True)
    try:
        meta = wrapper.resolve_many(_PROVIDERS)
    except (NotImplementedError, ValueError, KeyError) as exc:  # code Python rejects later (module-level nonlocal)
        raise BenchsmithError(f"{rel}: its scopes cannot be analysed ({type(exc).__name__}: {exc})") from None
    module, is_package = package_module_name(root, path)
    return SourceFile(path, rel, module, is_package, is_test_path(rel), wrapper, meta)


def load_repository(root: Path, skip_unparsable: bool = False) -> ParsedRepository:
    """Parse every ``.py``/``.pyi`` file under *root*; a file that does not parse is an error, or, with
    *skip_unparsable*, left out and named (a linter's test data holds deliberately broken files: pylint's
    ``doc/data/messages/s/syntax-error/bad.py``)."""
    root = Path(root)
    if not root.is_dir():
        raise BenchsmithError(f"{root}: repository directory does not exist")
    root = root.resolve()
    files, unparsable = [], []
    for path in iter_python_files(root):
        try:
            files.append(parse_file(root, path))
        except BenchsmithError:
            if not skip_unparsable:
                raise
            unparsable.append(path.relative_to(root).as_posix())
    if not files:
        raise BenchsmithError(f"{root}: no Python files in the repository")
    modules = {sf.module: sf for sf in files if sf.path.suffix == ".py"}
    return ParsedRepository(
        root=root,
        files=files,
        modules=modules,
        top_level=frozenset(m.split(".")[0] for m in modules),
        module_parts=frozenset(p for m in modules for p in m.split(".")),
        unparsable=tuple(unparsable),
    )
