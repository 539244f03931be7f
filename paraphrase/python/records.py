"""The records of a repository index: classes, functions, attribute and keyword uses.

They hold libcst nodes of the parsed files (compared by identity) so that the
analysis can point the rewriter at exact occurrences.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

import libcst as cst

from benchsmith.paraphrase.python.source import ParsedRepository, SourceFile


@dataclass(eq=False)
class ClassInfo:
    name: str
    sf: SourceFile
    node: cst.ClassDef
    body_names: set[str] = field(default_factory=set)  # bound in the class body: methods, class attributes
    methods: dict[str, list[FunctionInfo]] = field(default_factory=lambda: defaultdict(list))
    self_attrs: set[str] = field(default_factory=set)  # ``self.x = ...`` in its methods
    field_based: bool = False  # a dataclass: its generated __init__ takes the fields by name
    external_decorator: str | None = None


@dataclass(eq=False)
class FunctionInfo:
    node: cst.FunctionDef
    sf: SourceFile
    owner: ClassInfo | None  # the class whose body defines it


@dataclass(eq=False)
class AttrUse:
    node: cst.CSTNode  # the Attribute (or a class pattern's keyword)
    receiver: cst.BaseExpression
    sf: SourceFile
    instance_of: bool = False  # the receiver is a class and the attribute is its instances'


@dataclass(eq=False)
class KeywordUse:
    arg: cst.Arg
    call: cst.Call | None  # None for a class statement's keywords
    sf: SourceFile


@dataclass(eq=False)
class RepoIndex:
    repo: ParsedRepository
    classes: list[ClassInfo] = field(default_factory=list)
    classes_by_name: dict[str, list[ClassInfo]] = field(default_factory=lambda: defaultdict(list))
    class_of: dict[cst.ClassDef, ClassInfo] = field(default_factory=dict)
    functions_by_name: dict[str, list[FunctionInfo]] = field(default_factory=lambda: defaultdict(list))
    function_of: dict[cst.FunctionDef, FunctionInfo] = field(default_factory=dict)
    var_defs: set[str] = field(default_factory=set)  # names bound by repository code in any scope
    attr_defs: dict[str, str] = field(default_factory=dict)  # attribute names the repository defines -> where
    attr_uses: dict[str, list[AttrUse]] = field(default_factory=lambda: defaultdict(list))
    # values assigned to an attribute name anywhere: (file, value or None, annotation or None)
    attr_values: dict[str, list[tuple[SourceFile, cst.BaseExpression | None, cst.BaseExpression | None]]] = field(
        default_factory=lambda: defaultdict(list)
    )
    keyword_uses: dict[str, list[KeywordUse]] = field(default_factory=lambda: defaultdict(list))
    string_names: dict[str, str] = field(default_factory=dict)  # identifiers spelled by literals -> where
    fragments: list[tuple[str, str]] = field(default_factory=list)  # text of computed lookup names
    string_words: dict[str, str] = field(default_factory=dict)  # words of non-docstring literals -> where
    reads_names: str | None = None  # where ``__name__``/``__qualname__`` is first read
    external_imports: dict[str, str] = field(default_factory=dict)  # names bound by external imports
    external_modules: set[str] = field(default_factory=set)  # modules imported from other packages
    unresolved: dict[str, str] = field(default_factory=dict)  # unbound names beside an external ``import *``
    repo_stars: dict[SourceFile, list[str]] = field(default_factory=lambda: defaultdict(list))  # ``from .m import *``
    fixtures: set[str] = field(default_factory=set)
    external_fixtures: dict[str, str] = field(default_factory=dict)  # test parameters no repo fixture provides
    wrapped: dict[str, str] = field(default_factory=dict)  # names/params of externally decorated functions
    identifiers: set[str] = field(default_factory=set)  # every identifier spelled in the repository
    rewritable_strings: set[cst.SimpleString] = field(default_factory=set)  # renamed with the code
    _fixture_users: list[tuple[FunctionInfo, set[str]]] = field(default_factory=list)
