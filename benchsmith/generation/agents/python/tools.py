"""The RepoClassBench paper's six repository tools (Table 2, appendix F) over a Python classbench task's visible
repository.

``python_toolbox(task, visible)`` is what an agent gets: the tools by name, each with
its description and JSON-schema parameters, answering in text. Everything they
read is the visible repository (``benchsmith.generation.agents.python.visible``): the class
removed with its imports, the directive test files and (under ``relatives=False``)
the relatives left out. Output formats follow appendix F and the metadata
layout of Diff 1 ("Class signature:", "Functions accessible:", ...).
"""

from __future__ import annotations

import builtins
import re
import symtable
import typing

import jedi

from benchsmith.core.schema import ClassBenchTask
from benchsmith.generation.agents.base import Toolbox
from benchsmith.generation.agents.python.classes import ClassEntry, ClassResolver, ExternalClass, Member
from benchsmith.generation.agents.python.visible import VisibleRepository
from benchsmith.generation.agents.snippets import EmbeddingIndex, cut_snippets
from benchsmith.generation.agents.tools import (
    CLASS_INFO_MEMBERS,
    RELATED_SNIPPETS,
    RELEVANT_CODE,
    no_class,
    repository_tools,
    truncated,
)
from benchsmith.generation.models.base import Embedder
from benchsmith.generation.models.embeddings import get_embedder

_MODULE_DUNDERS = {
    "__name__",
    "__file__",
    "__doc__",
    "__package__",
    "__spec__",
    "__loader__",
    "__builtins__",
    "__path__",
    "__annotations__",
    "__class__",
    "__dict__",
    "__qualname__",
    "__module__",
}


class PythonTools:
    """The tools' implementations, sharing one visible repository, one jedi project and the embedding indexes."""

    def __init__(self, task: ClassBenchTask, visible: VisibleRepository, embedder: Embedder, description: str) -> None:
        self.task = task
        self.visible = visible
        self.embedder = embedder
        self.description = description
        self.resolver = ClassResolver(visible)
        self.latest_attempt = ""
        self.snippets = cut_snippets(visible.files)
        self._snippet_index = EmbeddingIndex(embedder, [s.text for s in self.snippets])
        self._structures: list[str] | None = None
        self._structure_index: EmbeddingIndex | None = None

    def attempt(self, code: str) -> None:
        self.latest_attempt = code

    # get_related_snippets (independent) -------------------------------------------------------------------------
    def related_snippets(self, query: str = "", thought: str = "") -> str:
        query = (query.strip() if isinstance(query, str) else "") or self.description
        chosen = [self.snippets[i] for i in self._snippet_index.top(query, RELATED_SNIPPETS)]
        if not chosen:
            return "The repository has no code to show."
        return "\n\n".join(s.render() for s in chosen)

    # get_imports ------------------------------------------------------------------------------------------------
    def imports(self, thought: str = "") -> str:
        if not self.latest_attempt.strip():
            return "There is no attempt yet: get_imports suggests imports for the undefined symbols of an attempt."
        module = self.visible.files.get(self.task.file_path, "")
        try:
            # Where the class was: the module's own names are defined for it (symtable reads the module whole, in any
            # order).
            undefined = undefined_names(module + "\n\n" + self.latest_attempt)
        except SyntaxError as exc:
            return f"The current attempt does not parse ({exc.msg}, line {exc.lineno}): no import can be suggested."
        undefined = [n for n in undefined if re.search(rf"\b{re.escape(n)}\b", self.latest_attempt)]
        if not undefined:
            return "Every symbol of the current attempt is defined: no import is missing."
        lines = ["Import suggestions for the undefined symbols of the current attempt:"]
        for name in undefined:
            candidates = self._import_candidates(name)
            if not candidates:
                lines.append(f"* {name}: no definition found in the repository")
            elif len(candidates) == 1:
                lines.append(f"* {name}: {candidates[0]}")
            else:
                lines.append(f"* {name}: one of")
                lines += [f"    {c}" for c in candidates]
        return "\n".join(lines)

    def _import_candidates(self, name: str) -> list[str]:
        """Definitions of *name* at the top of a visible module (jedi's project search), then the imports of it
        that the repository's modules make, then a module of that name the environment holds."""
        candidates: list[str] = []
        own_module = self.visible.module_name(self.task.file_path)
        try:
            found = self.resolver.project.search(name, all_scopes=False)
        except Exception:
            found = []
        for definition in found:
            if (
                definition.name == name
                and definition.module_name
                and definition.module_name != own_module
                and definition.type in ("class", "function", "statement", "instance")
            ):
                candidates.append(f"from {definition.module_name} import {name}")
        for module in self.visible.modules.values():
            candidates += [statement for bound, statement in module.imports if bound == name]
        if not candidates:
            try:
                modules = jedi.Script(f"import {name}", project=self.resolver.project).goto(1, 7)
            except Exception:
                modules = []
            if any(m.type == "module" for m in modules):
                candidates.append(f"import {name}")
            elif name in typing.__all__:  # annotations: the repository may import none of these any more
                candidates.append(f"from typing import {name}")
        return sorted(dict.fromkeys(candidates), key=lambda c: (c.startswith("import"), c))

    # get_class_info ---------------------------------------------------------------------------------------------
    def class_info(self, class_name: str, thought: str = "") -> str:
        if not isinstance(class_name, str) or not class_name.strip():
            return "get_class_info needs the name of a class."
        answers = []
        for name in [n.strip() for n in class_name.split(",") if n.strip()]:  # appendix F: several classes, each shown
            classes = self.resolver.named(name)
            answers.append("\n\n".join(self._class_info(c, thought) for c in classes) if classes else no_class(name))
        return "\n\n".join(answers)

    def _class_info(self, cls: ClassEntry | ExternalClass, thought: str) -> str:
        members = self.resolver.members(cls)
        shown = self._top_members(members, thought)
        if isinstance(cls, ClassEntry):
            lines = [
                f"Class signature: {' '.join([*cls.decorators, cls.header])}",
                f"Class full name: {cls.qualname}",
                f"File: {cls.path.relative_to(self.visible.root).as_posix()}",
            ]
            if cls.docstring:
                lines.append(f"Class docstring: {cls.docstring}")
        else:
            lines = [f"Class full name: {cls.full_name}", "Defined outside the repository (signatures only)."]
        sections = (
            ("Functions accessible", "function"),
            ("Class variables accessible", "class variable"),
            ("Instance variables accessible", "instance variable"),
            ("Properties accessible", "property"),
        )
        for title, kind in sections:
            chosen = [m for m in shown if m.kind == kind]
            lines.append(f"{title}:" + ("" if chosen else " None"))
            lines += [m.line() for m in chosen]
        if len(shown) < len(members):
            lines.append(
                f"({len(members) - len(shown)} more members not shown: the {CLASS_INFO_MEMBERS} nearest to "
                "the preceding thought are listed)"
            )
        return "\n".join(lines)

    def _top_members(self, members: list[Member], thought: str) -> list[Member]:
        """The constructor and the members nearest to *thought*, in their listed order."""
        if len(members) <= CLASS_INFO_MEMBERS:
            return members
        keep = {i for i, m in enumerate(members) if m.name == "__init__"}
        order = list(range(len(members)))
        if thought.strip():
            order = EmbeddingIndex(self.embedder, [m.text for m in members]).top(thought, len(members))
        for i in order:
            if len(keep) >= CLASS_INFO_MEMBERS:
                break
            keep.add(i)
        return [m for i, m in enumerate(members) if i in keep]

    # get_signature / get_method_body ----------------------------------------------------------------------------
    def _methods(self, class_name: str | None, method_name: str) -> tuple[list[tuple[str, list[Member]]], str]:
        """Per class found, the definitions of *method_name* (overloads included); the message when none is."""
        if not isinstance(method_name, str) or not method_name.strip():
            return [], "A method name is needed."
        method_name = method_name.strip()
        if class_name is not None and not isinstance(class_name, str):
            return [], "The class name must be a string (or null for a module-level function)."
        if not class_name or class_name.strip() in ("None", "null"):
            functions = [f for f in self.visible.functions if f.name == method_name]
            found = [
                (
                    f.qualname.rpartition(".")[0] or "<module>",
                    [Member("function", f.name, f.signature, "", "public", function=f)],
                )
                for f in functions
            ]
            return found, "" if found else f"No module-level function `{method_name}` was found in the repository."
        classes = self.resolver.named(class_name)
        if not classes:
            return [], no_class(class_name)
        found = []
        for cls in classes:
            members = [
                m for m in self.resolver.members(cls) if m.name == method_name and m.kind in ("function", "property")
            ]
            if members:
                found.append((members[0].owner, members))
        if not found:
            names = sorted(
                {m.name for c in classes for m in self.resolver.members(c) if m.kind in ("function", "property")}
            )
            return [], f"Class `{class_name}` has no method `{method_name}`. Its methods: {', '.join(names) or 'none'}."
        return found, ""

    def signature(self, class_name: str | None, method_name: str, thought: str = "") -> str:
        found, message = self._methods(class_name, method_name)
        if message:
            return message
        blocks = []
        for owner, members in found:
            lines = [f"Signatures of `{method_name}` in `{owner}`:"]
            for member in members:
                if member.function is not None:
                    lines += [*member.function.decorators, member.function.signature]
                else:
                    lines += list(member.signatures or (member.text,))
            blocks.append("\n".join(lines))
        return "\n\n".join(blocks)

    def method_body(self, class_name: str | None, method_name: str, thought: str = "") -> str:
        found, message = self._methods(class_name, method_name)
        if message:
            return message
        blocks = []
        for owner, members in found:
            for member in members:
                if member.function is None:
                    signatures = "\n".join(member.signatures or (member.text,))
                    blocks.append(
                        f"`{owner}.{method_name}` is defined outside the repository; its signature:\n{signatures}"
                    )
                else:
                    blocks.append(f"Definition of `{member.function.qualname}`:\n{truncated(member.function.source)}")
        return "\n\n".join(blocks)

    # get_relevant_code ------------------------------------------------------------------------------------------
    def relevant_code(self, search_string: str, thought: str = "") -> str:
        if not isinstance(search_string, str) or not search_string.strip():
            return "get_relevant_code needs a search string."
        if self._structure_index is None:
            self._structures = [
                f"# Class `{c.qualname}` (methods' bodies left out)\n{c.stripped()}" for c in self.visible.classes
            ]
            self._structures += [f"# Function `{f.qualname}`\n{f.source}" for f in self.visible.functions]
            own = len(self._structures)
            self._structures += [s.render() for s in self.snippets]
            # a snippet is ranked by its text, which the snippet index embedded already: each is embedded once
            self._structure_index = EmbeddingIndex(
                self.embedder, [*self._structures[:own], *(s.text for s in self.snippets)]
            )
        chosen = self._structure_index.top(search_string, RELEVANT_CODE)
        return "\n\n".join(self._structures[i] for i in chosen) or "The repository has no code to show."


def undefined_names(code: str) -> list[str]:
    """Names *code* reads that nothing in it binds and that are not builtins, in order of first use."""
    table = symtable.symtable(code, "<attempt>", "exec")
    defined = {s.get_name() for s in table.get_symbols() if s.is_assigned() or s.is_imported() or s.is_namespace()}
    wanted: set[str] = set()

    def walk(scope: symtable.SymbolTable) -> None:
        for symbol in scope.get_symbols():
            name = symbol.get_name()
            top = (
                scope.get_type() == symtable.SymbolTableType.MODULE
                if hasattr(symtable, "SymbolTableType")
                else scope.get_type() == "module"
            )
            if symbol.is_referenced() and (symbol.is_global() if not top else True) and name not in defined:
                wanted.add(name)
        for child in scope.get_children():
            walk(child)

    walk(table)
    wanted -= set(dir(builtins)) | _MODULE_DUNDERS
    first = {name: (m.start() if (m := re.search(rf"\b{re.escape(name)}\b", code)) else 0) for name in wanted}
    return sorted(wanted, key=lambda n: (first[n], n))


def python_toolbox(
    task: ClassBenchTask,
    visible: VisibleRepository,
    *,
    embedder: Embedder | None = None,
    description: str | None = None,
) -> Toolbox:
    """The six tools over *visible*, *task*'s repository as the model may see it (the benchmark makes it,
    :func:`benchsmith.benchmarks.classbench.python.visible_repository_of`).

    *description* is get_related_snippets' default query (the task's DETAILED description, else its SKETCHY one,
    else the class's name); *embedder* ranks by cosine similarity (default: the offline MiniLM, cached)."""
    query = description or task.detailed_description or task.sketchy_description or task.class_name
    tools = PythonTools(task, visible, embedder or get_embedder("minilm"), query)
    return Toolbox(tools=repository_tools(tools), attempt=tools.attempt)
