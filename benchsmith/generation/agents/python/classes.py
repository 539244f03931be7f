"""Classes of the visible repository with their members, inherited ones included, resolved by jedi.

A base class is found with jedi's goto at the base's name, as an editor would:
a class of the visible tree is read from the index (its source is visible); a
class outside it (the standard library, an installed package) is *external*:
its members come from jedi's completions on the class (signatures from its
stubs, inherited members included) and never a body. Nothing is ever read from
the pristine tree: a path into it is refused.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import jedi

from benchsmith.core.config import cache_dir
from benchsmith.generation.agents.python.visible import ClassEntry, FunctionEntry, VisibleRepository

_OBJECT = "builtins.object"


@dataclass(frozen=True)
class Member:
    """One member as get_class_info lists it."""

    kind: str  # function | property | class variable | instance variable
    name: str
    text: str  # the signature ("def f(self, a: int) -> str:") or the variable ("x = 1", "self.x")
    owner: str  # the qualified name of the class defining it
    access: str  # public | protected | private
    static: bool = False
    classmethod: bool = False
    abstract: bool = False
    external: bool = False  # defined outside the repository: no body to show
    function: FunctionEntry | None = None  # the definition, for members of the visible tree
    signatures: tuple[str, ...] = ()  # of an external function, one per overload

    def line(self) -> str:
        flags = [self.access] + [
            f
            for f, on in (
                ("static", self.static),
                ("classmethod", self.classmethod),
                ("abstract", self.abstract),
                ("external", self.external),
            )
            if on
        ]
        return f"* {self.text} | {', '.join(flags)} | defined in class `{self.owner}`"


def access_of(name: str) -> str:
    if name.startswith("__") and not name.endswith("__"):
        return "private"
    return "protected" if name.startswith("_") and not name.startswith("__") else "public"


@dataclass(frozen=True)
class ExternalClass:
    full_name: str  # collections.OrderedDict
    name: str


class ClassResolver:
    """Classes by name, their bases and their members (own first, then each base's in order)."""

    def __init__(self, visible: VisibleRepository) -> None:
        self.visible = visible
        jedi.settings.cache_directory = str(cache_dir("agents", "jedi"))
        self.project = jedi.Project(
            visible.root,
            environment_path=str(visible.repo.python),
            added_sys_path=[str(visible.root / visible.repo.import_root)],
            smart_sys_path=False,
            load_unsafe_extensions=False,
        )
        self._by_position = {(c.path, c.line): c for c in visible.classes}
        self._external: dict[str, list[Member]] = {}

    def named(self, name: str) -> list[ClassEntry | ExternalClass]:
        """Every class of the repository called *name* (or whose qualified name ends so); else an imported one."""
        name = name.strip()
        found: list[ClassEntry | ExternalClass] = [
            c for c in self.visible.classes if c.name == name or c.qualname == name or c.qualname.endswith("." + name)
        ]
        if found:
            return found
        seen: dict[str, ExternalClass] = {}
        for module in self.visible.modules.values():
            for bound, statement in module.imports:
                if bound == name.split(".")[0]:
                    for external in self._goto_external(f"{statement}\n{name}", 2, len(name)):
                        seen.setdefault(external.full_name, external)
        return list(seen.values())

    def _goto_external(self, code: str, line: int, column: int) -> list[ExternalClass]:
        try:
            names = jedi.Script(code, project=self.project).goto(line, column, follow_imports=True)
        except Exception:  # jedi's inference fails on odd code: then nothing is known of it
            return []
        return [
            ExternalClass(n.full_name, n.name)
            for n in names
            if n.type == "class" and n.full_name and not self._inside(n)
        ]

    def _inside(self, name) -> bool:
        path = name.module_path
        return path is not None and Path(path).is_relative_to(self.visible.root)

    def bases(self, entry: ClassEntry) -> list[ClassEntry | ExternalClass]:
        return list(_bases(self, entry))

    def members(self, cls: ClassEntry | ExternalClass) -> list[Member]:
        """Members along the bases, depth first (a name defined nearer wins, as attribute lookup mostly does)."""
        members: list[Member] = []
        visited: set[str] = set()

        def walk(current: ClassEntry | ExternalClass) -> None:
            key = current.full_name if isinstance(current, ExternalClass) else current.qualname
            if key in visited or key == _OBJECT:
                return
            visited.add(key)
            own = _own_members(current) if isinstance(current, ClassEntry) else self._external_members(current)
            for member in own:
                if any(m.name == member.name and m.owner != member.owner for m in members):
                    continue  # defined nearer: the nearer definition is the one attribute lookup finds
                members.append(member)
            if isinstance(current, ClassEntry):
                for base in self.bases(current):
                    walk(base)

        walk(cls)
        return members

    def _external_members(self, cls: ExternalClass) -> list[Member]:
        """Public members and dunders of an external class, inherited ones included, from jedi's completions."""
        if cls.full_name not in self._external:
            self._external[cls.full_name] = _external_members(self.project, cls.full_name)
        return self._external[cls.full_name]


def _bases(resolver: ClassResolver, entry: ClassEntry):
    if not entry.path.is_relative_to(resolver.visible.root):
        return
    for expression, line, column in entry.bases:
        try:
            names = jedi.Script(path=entry.path, project=resolver.project).goto(line, column, follow_imports=True)
        except Exception:
            names = []
        for name in names[:1]:  # jedi may add the stub's twin of the same class
            if name.type != "class":
                continue
            if resolver._inside(name):
                found = resolver._by_position.get((Path(name.module_path), name.line))
                if found is not None:
                    yield found
            elif name.full_name:
                yield ExternalClass(name.full_name, name.name)


def _own_members(entry: ClassEntry) -> list[Member]:
    members = []
    for method in entry.methods:
        kind = "property" if method.is_property else "function"
        text = (
            " ".join([*method.decorators, method.signature])
            if kind == "property" or method.decorators
            else method.signature
        )
        members.append(
            Member(
                kind,
                method.name,
                " ".join(text.split()),
                entry.qualname,
                access_of(method.name),
                method.is_static,
                method.is_classmethod,
                method.is_abstract,
                function=method,
            )
        )
    for variable in entry.class_variables:
        name = variable.split("=")[0].split(":")[0].strip()
        members.append(Member("class variable", name, " ".join(variable.split()), entry.qualname, access_of(name)))
    for variable in entry.instance_variables:
        name = variable.removeprefix("self.")
        members.append(Member("instance variable", name, variable, entry.qualname, access_of(name)))
    return members


def _external_members(project: jedi.Project, full_name: str) -> list[Member]:
    module, _, name = full_name.rpartition(".")
    prefix = f"import {module}\n{full_name}." if module and module != "builtins" else f"{name}."
    code = prefix.split("\n")
    try:
        completions = jedi.Script(prefix, project=project).complete(len(code), len(code[-1]))
    except Exception:
        return []
    members = []
    for completion in completions:
        owner = (completion.full_name or "").rpartition(".")[0] or full_name
        if (
            owner == _OBJECT
            or completion.name.startswith("__")
            and completion.name != "__init__"
            and owner != full_name
        ):
            continue  # object's dunders, and inherited dunders: every class has them, they tell nothing
        if completion.type == "function":
            try:
                signatures = tuple(f"def {s.to_string()}" for s in completion.get_signatures())
            except Exception:
                signatures = ()
            text = signatures[0] if signatures else f"def {completion.name}(...)"
            members.append(
                Member(
                    "function",
                    completion.name,
                    text,
                    owner,
                    access_of(completion.name),
                    external=True,
                    signatures=signatures,
                )
            )
        elif completion.type in ("statement", "instance"):
            members.append(
                Member(
                    "class variable", completion.name, completion.name, owner, access_of(completion.name), external=True
                )
            )
        elif completion.type == "property":
            members.append(
                Member("property", completion.name, completion.name, owner, access_of(completion.name), external=True)
            )
    return members
