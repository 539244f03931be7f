"""Rename identifiers in one parsed file with a libcst transformer.

Only ``Name`` nodes and a few string literals change, so whitespace, comments
and formatting stay byte for byte. Every ``Name`` spelled like a mapped
identifier is renamed except module paths of imports, names imported from
other packages, and keyword arguments the analysis marked as going to an
external callable. String literals change only where they are code or a list
of names kept in step with the code: string annotations (``-> "Encoder"``),
``__all__``/``__slots__``/``__match_args__`` items and pytest ``parametrize``
argument names.
"""

from __future__ import annotations

from collections.abc import Mapping

import libcst as cst

from benchsmith.paraphrase.python import syntax
from benchsmith.paraphrase.python.overrule import Occurrences
from benchsmith.paraphrase.python.source import ParsedRepository, SourceFile


class _NameRenamer(cst.CSTTransformer):
    """Rename every mapped Name (for the code inside string annotations)."""

    def __init__(self, mapping: Mapping[str, str]) -> None:
        self.mapping = mapping

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.Name:
        new = self.mapping.get(updated_node.value)
        return updated_node.with_changes(value=new) if new else updated_node


class Renamer(cst.CSTTransformer):
    def __init__(
        self,
        repo: ParsedRepository,
        sf: SourceFile,
        mapping: Mapping[str, str],
        keep_keywords: set[cst.Arg],
        occurrences: Occurrences | None = None,
    ) -> None:
        self.repo, self.sf, self.mapping, self.keep_keywords = repo, sf, mapping, keep_keywords
        self.occurrences = occurrences or Occurrences()
        self.protected: set[cst.Name] = set(self.occurrences.kept)
        self.name_lists: set[cst.SimpleString] = set()
        self.annotation_depth = 0
        self.literal_depth = 0
        self.renamed = 0

    def _protect(self, node: cst.CSTNode | None) -> None:
        if isinstance(node, cst.Name):
            self.protected.add(node)
        elif node is not None:
            for child in node.children:
                self._protect(child)

    # -- what must not change ---------------------------------------------------------------------
    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            self._protect(alias.name)  # the module path; ``as`` names are local bindings

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        self._protect(node.module)
        _, is_repo = self.repo.resolve_from(self.sf, node)
        if not is_repo and not isinstance(node.names, cst.ImportStar):
            for alias in node.names:
                self._protect(alias.name)

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None and node in self.keep_keywords:
            self.protected.add(node.keyword)

    # -- string contexts --------------------------------------------------------------------------
    def _mark_name_lists(self, node: cst.CSTNode) -> None:
        for value in syntax.name_list_values(node):
            self.name_lists.update(syntax.strings_within(value))

    def visit_Assign(self, node: cst.Assign) -> None:
        self._mark_name_lists(node)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._mark_name_lists(node)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._mark_name_lists(node)

    def visit_Call(self, node: cst.Call) -> None:
        self._mark_name_lists(node)

    def visit_Decorator(self, node: cst.Decorator) -> None:
        values = syntax.parametrize_argnames(node)
        if values is not None:
            self.name_lists.update(syntax.strings_within(values))

    def visit_Annotation(self, node: cst.Annotation) -> None:
        self.annotation_depth += 1

    def leave_Annotation(self, original_node: cst.Annotation, updated_node: cst.Annotation) -> cst.Annotation:
        self.annotation_depth -= 1
        return updated_node

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if syntax.is_literal_subscript(node):
            self.literal_depth += 1

    def leave_Subscript(self, original_node: cst.Subscript, updated_node: cst.Subscript) -> cst.Subscript:
        if syntax.is_literal_subscript(original_node):
            self.literal_depth -= 1
        return updated_node

    # -- renaming ---------------------------------------------------------------------------------
    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.Name:
        if original_node in self.protected:
            return updated_node
        new = self.mapping.get(updated_node.value)
        if new is None:
            return updated_node
        self.renamed += 1
        return updated_node.with_changes(value=new)

    def leave_SimpleString(self, original_node: cst.SimpleString, updated_node: cst.SimpleString) -> cst.SimpleString:
        if original_node in self.name_lists:
            result = syntax.rename_identifier_list(updated_node, self.mapping)
        elif original_node in self.occurrences.strings:
            result = self.occurrences.strings[original_node]
        elif self.annotation_depth and not self.literal_depth:
            result = self._rename_annotation(updated_node)
        else:
            return updated_node
        self.renamed += result is not updated_node
        return result

    def _rename_annotation(self, node: cst.SimpleString) -> cst.SimpleString:
        text = syntax.string_text(node)
        if text is None or not text.strip():
            return node
        try:
            expression = cst.parse_expression(text)
        except cst.ParserSyntaxError:
            return node
        code = cst.Module([]).code_for_node(expression.visit(_NameRenamer(self.mapping)))
        if code == text:
            return node
        return node.with_changes(value=f"{node.prefix}{node.quote}{code}{node.quote}")


def rewrite(
    repo: ParsedRepository,
    sf: SourceFile,
    mapping: Mapping[str, str],
    keep_keywords: set[cst.Arg],
    occurrences: Occurrences | None = None,
) -> tuple[cst.Module, int]:
    """The renamed module and how many names or literals changed. *occurrences*: where overruled names keep their
    spelling, and the literals naming them (:mod:`benchsmith.paraphrase.python.overrule`)."""
    renamer = Renamer(repo, sf, mapping, keep_keywords, occurrences)
    return sf.tree.visit(renamer), renamer.renamed
