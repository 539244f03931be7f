"""Rebuilding a published task's paraphrased repository from its upstream history (RepoClassBench paper, E.1.3).

RepoClassBench's SWE-bench repositories are case-flipped copies at commits of
their own (``repo_metadata.commit_id``), shared only as archives on the
authors' drive. What is public is the upstream commit they were made from
(``setup_details.base_commit``) and each task's ground truth, which is the
flipped class itself. So the flips are read off the ground truth, token by
token against the upstream class (:func:`read_flips`), and applied across the
upstream tree with benchsmith's renamer. The result is committed, dated as the
base commit (its environment resolves as of that day), into a git repository
in the private cache, which the tasks then name.

It is a reconstruction, not the authors' copy: names the ground truth does not
spell keep their upstream spelling everywhere (consistently). A name the
published paraphrase flipped but benchsmith's rules keep (``Module``, also
``ast``'s) is renamed by spelling anyway, but where an occurrence is another
package's (:mod:`benchsmith.paraphrase.python.overrule`). A name the ground truth also spells as
upstream (``get``, which dicts have too) is renamed by reference instead: jedi
finds what each of its uses in the task's class refers to, then every
reference to that definition, and only those change
(:func:`_rename_by_reference`). What jedi cannot place stays as upstream
spells it, and is recorded. A ground truth that is the instance's fixed class
(SWE-bench's gold patch) is read in the base commit with that fix applied
(:func:`instance_fix`).
"""

from __future__ import annotations

import ast
import dataclasses
import difflib
import io
import json
import logging
import os
import re
import shutil
import subprocess
import tempfile
import tokenize
from dataclasses import dataclass, field
from pathlib import Path

from benchsmith.core.atomic import exclusive
from benchsmith.core.errors import BenchsmithError
from benchsmith.paraphrase.python.index import build_index
from benchsmith.paraphrase.python.repository import paraphrase_repository
from benchsmith.paraphrase.python.source import load_repository
from benchsmith.sources.checkout import export_commit, nearest_tag

log = logging.getLogger(__name__)
# bump when the same flips would be applied differently (2: mixed names by spelling; 3: kept names overruled;
# 4: an overruled name is kept only where its receiver starts at another package's import; 5: expected reprs;
# 6: expected reprs of the <Name ...> form; 7: a class named as Python's messages name a type, "'X' object ...")
RECONSTRUCTION_FORMAT = 7
_LAYOUT = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER}
_IDENTITY = {
    "GIT_AUTHOR_NAME": "benchsmith",
    "GIT_AUTHOR_EMAIL": "benchsmith@localhost",
    "GIT_COMMITTER_NAME": "benchsmith",
    "GIT_COMMITTER_EMAIL": "benchsmith@localhost",
}


@dataclass
class Reconstruction:
    history: str  # the git repository holding the rebuilt copy
    commit: str  # its one commit
    base_commit: str  # the upstream commit it was made from
    flips: dict[str, str]  # upstream name -> the published spelling, as applied
    kept: dict[str, str] = field(default_factory=dict)  # flips the published copy made that this copy lacks: why
    files_changed: int = 0
    by_reference: dict[str, int] = field(default_factory=dict)  # name -> occurrences renamed by reference (jedi)
    overruled: dict[str, str] = field(default_factory=dict)  # name -> the rule it was renamed against, by spelling
    fix: str = ""  # the upstream commit of the instance's fix, applied to the base commit


def read_flips(upstream: str, class_name: str, ground_truth: str, where: str) -> tuple[dict[str, str], set[str]]:
    """The renames that turn the upstream class into *ground_truth*: each identifier of the upstream class that the
    ground truth spells in other case; and those it also spells as upstream does (``get``, the class's own method
    flipped, a dict's kept), which only a rename by reference can reproduce. The two must be the same token stream
    but for the case of identifiers (comments and layout aside); anything else is an error naming the first
    difference."""
    try:
        module = ast.parse(upstream)
    except SyntaxError as exc:
        raise BenchsmithError(f"{where}: the upstream file does not parse: {exc.msg} (line {exc.lineno})") from None
    classes = [n for n in module.body if isinstance(n, ast.ClassDef) and n.name.lower() == class_name.lower()]
    if len(classes) != 1:
        raise BenchsmithError(
            f"{where}: the upstream file has {len(classes)} module-level classes named like {class_name}"
        )
    source = _class_source(upstream, classes[0])
    before, after = _tokens(source, where), _tokens(ground_truth, where)
    folded = difflib.SequenceMatcher(None, [_fold(t) for t in before], [_fold(t) for t in after], autojunk=False)
    if folded.ratio() < 1.0:
        tag, i1, _, j1, _ = next(op for op in folded.get_opcodes() if op[0] != "equal")
        upstream_token = before[i1][1] if i1 < len(before) else "the end"
        published_token = after[j1][1] if j1 < len(after) else "the end"
        raise BenchsmithError(
            f"{where}: the ground truth is not the upstream class with identifiers case-flipped "
            f"(token {i1}: upstream {upstream_token!r}, published {published_token!r})"
        )
    spellings: dict[str, set[str]] = {}
    for (kind, old), (_, new) in zip(before, after):
        if kind == tokenize.NAME:
            spellings.setdefault(old, set()).add(new)
        elif kind == tokenize.STRING and old != new and _NAMED.fullmatch(old):  # "Code", a string annotation
            spellings.setdefault(_NAMED.fullmatch(old)[2], set()).add(_NAMED.fullmatch(new)[2])
    flips: dict[str, str] = {}
    for old, spelled in spellings.items():
        flipped = spelled - {old}
        if len(flipped) > 1:
            raise BenchsmithError(
                f"{where}: {old} is flipped two ways in the ground truth: {', '.join(sorted(flipped))}"
            )
        if flipped:
            flips[old] = flipped.pop()
    return flips, {old for old in flips if old in spellings[old]}


# A string literal that holds one identifier: the published paraphrase flips those with the name ("Code" as a return
# annotation, "snap" naming a state); a docstring's words differ only in case too, and are compared case-folded.
_NAMED = re.compile(r"""([rRbBuU]?['"])([A-Za-z_]\w*)\1""")


def _class_source(upstream: str, node: ast.ClassDef) -> str:
    """The class as the published ground truth holds it: its decorators included (``ast`` starts it at ``class``)."""
    first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    lines = upstream.splitlines(keepends=True)
    return "".join(lines[first - 1 : node.end_lineno or node.lineno])


def _tokens(source: str, where: str) -> list[tuple[int, str]]:
    try:
        return [
            (t.type, t.string) for t in tokenize.generate_tokens(io.StringIO(source).readline) if t.type not in _LAYOUT
        ]
    except (tokenize.TokenError, IndentationError, SyntaxError) as exc:
        raise BenchsmithError(f"{where}: does not tokenize: {exc}") from None


def _fold(token: tuple[int, str]) -> tuple[int, str]:
    kind, text = token
    return (kind, text.lower()) if kind in (tokenize.NAME, tokenize.STRING) else token


def read_group(history: str, base: str, members: list, fixed: Path | None) -> tuple:
    """The flips the ground truths of *members* (the published tasks of one copy) spell against the upstream class,
    read at *base* (or in the *fixed* tree): (flips, sites, mixed names, [(task, its flips)], {task id: why not})."""
    flips: dict[str, str] = {}
    sites: dict[str, list] = {}
    mixed: set[str] = set()
    readable, unreadable = [], {}
    for task in members:
        if fixed is None:
            shown = subprocess.run(["git", "-C", history, "show", f"{base}:{task.file_path}"], capture_output=True)
            present, upstream = shown.returncode == 0, shown.stdout.decode("utf-8", "surrogateescape")
        else:
            present = (fixed / task.file_path).is_file()
            upstream = (fixed / task.file_path).read_text("utf-8", "surrogateescape") if present else ""
        try:
            if not present:
                raise BenchsmithError(f"{task.file_path} is not in upstream commit {base[:12]}")
            found, spelled_both_ways = read_flips(upstream, task.class_name, task.ground_truth_class, task.task_id)
            clash = {old for old, new in found.items() if flips.get(old, new) != new}
            if clash:
                raise BenchsmithError(f"{task.task_id}: flips {', '.join(sorted(clash))} unlike the other tasks")
        except BenchsmithError as exc:
            unreadable[task.task_id] = str(exc).removeprefix(f"{task.task_id}: ")
            continue
        flips.update(found)
        mixed |= spelled_both_ways
        sites.setdefault(task.file_path, []).extend(flipped_sites(upstream, task.class_name, set(found)))
        readable.append((task, found))
    return flips, sites, mixed, readable, unreadable


def flipped_sites(upstream: str, class_name: str, names: set[str]) -> list[tuple[int, int, str]]:
    """``(line, column, name)`` of every occurrence of *names* inside the upstream module-level class."""
    (node,) = [
        n for n in ast.parse(upstream).body if isinstance(n, ast.ClassDef) and n.name.lower() == class_name.lower()
    ]
    first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    return [
        (t.start[0], t.start[1], t.string)
        for t in tokenize.generate_tokens(io.StringIO(upstream).readline)
        if t.type == tokenize.NAME and t.string in names and first <= t.start[0] <= (node.end_lineno or 0)
    ]


def instance_fix(upstream: Path, base_commit: str, instance_id: str) -> str:
    """The upstream commit that merged the SWE-bench instance's pull request (the number ending *instance_id*) on the
    way from *base_commit* to the default branch, or "". RepoClassBench's copies hold that fix: pvlib's PVSystem
    takes a single Array as #1854 made it, pylint's JSON2Reporter is #8929's."""
    number = instance_id.rsplit("-", 1)[-1]
    if not number.isdigit():
        return ""
    listed = subprocess.run(
        ["git", "-C", str(upstream), "log", "--ancestry-path", "--reverse", "--format=%H %s", f"{base_commit}..HEAD"],
        capture_output=True,
        text=True,
    )
    merged = re.compile(rf"\(#{number}\)\s*$|^Merge pull request #{number}\b")
    for line in listed.stdout.splitlines():
        commit, _, subject = line.partition(" ")
        if merged.search(subject):
            return commit
    return ""


def export_fixed(upstream: Path, base_commit: str, fix: str, tree: Path) -> None:
    """*base_commit*'s files into *tree*, with *fix*'s own changes (its diff from its first parent) applied."""

    export_commit(str(upstream), upstream, base_commit, tree)
    (tree / ".benchsmith-complete").unlink()
    if not fix:
        return
    diff = subprocess.run(["git", "-C", str(upstream), "diff", "--binary", f"{fix}^1", fix], capture_output=True).stdout
    # GIT_CEILING_DIRECTORIES: the tree is not a repository, and no repository above it may take the patch
    applied = subprocess.run(
        ["git", "apply", "--whitespace=nowarn", "-"],
        input=diff,
        cwd=tree,
        capture_output=True,
        env={**os.environ, "GIT_CEILING_DIRECTORIES": str(tree.parent)},
    )
    if applied.returncode != 0:
        raise BenchsmithError(
            f"{upstream}: the instance's fix {fix[:12]} does not apply to {base_commit[:12]}: "
            f"{applied.stderr.decode(errors='replace').strip()[:200]}"
        )


def reconstruct(
    upstream: Path,
    base_commit: str,
    flips: dict[str, str],
    target: Path,
    sites: dict[str, list[tuple[int, int, str]]] | None = None,
    mixed: set[str] = frozenset(),
    fix: str = "",
) -> Reconstruction:
    """The upstream tree at *base_commit* with *flips* applied by benchsmith's renamer, committed into the git
    repository *target* (made once; a second call reads it back). A name the renamer's rules keep (``Module``,
    which astroid also reads off ``ast``) is renamed by spelling anyway, but where an occurrence is another
    package's (:mod:`benchsmith.paraphrase.python.overrule`): jedi misses imports, re-exports, ``__all__`` and module
    attributes.
    *mixed* names, which the ground truths also spell as upstream (a dict's ``get`` beside the class's own), are
    renamed where the rules allow it, else by reference from their *sites* (file -> :func:`flipped_sites`). *fix*:
    the instance's fix (:func:`instance_fix`), applied first."""

    record = target / "benchsmith-reconstruction.json"
    with exclusive(target):
        if record.is_file():
            return Reconstruction(**json.loads(record.read_text()))
        date = _git(upstream, "show", "-s", "--format=%cI", f"{base_commit}^{{commit}}").strip()
        with tempfile.TemporaryDirectory(prefix="benchsmith-reconstruct-") as scratch:
            tree, out = Path(scratch) / "upstream", Path(scratch) / "paraphrased"
            export_fixed(upstream, base_commit, fix, tree)
            index = build_index(load_repository(tree, skip_unparsable=True))  # copied as they are
            # a name the ground truth also spells as upstream (a dict's get beside the class's own) is renamed by
            # spelling only where benchsmith's rules allow it, which they do not where another package spells it
            report = paraphrase_repository(
                tree, out, flips, index=index, chosen=flips, overrule=set(flips) - set(mixed)
            )
            kept = {n: e.rule for n, e in sorted(report.excluded.items())}
            by_reference = _rename_by_reference(tree, out, {n: flips[n] for n in kept}, sites or {})
            kept = {n: f"{rule}; jedi placed none of its uses" for n, rule in kept.items() if n not in by_reference}
            shutil.rmtree(target, ignore_errors=True)
            target.mkdir(parents=True)
            env = {**os.environ, **_IDENTITY, "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
            git = ["git", "-C", str(target)]
            subprocess.run([*git, "init", "--quiet", "--bare"], check=True)
            work = ["git", f"--git-dir={target}", f"--work-tree={out}"]
            subprocess.run([*work, "add", "--all", "--force"], check=True, env=env)
            message = (
                f"benchsmith: {base_commit}{f' with the fix of {fix}' if fix else ''}, {len(report.mapping)} names "
                "case-flipped as the published tasks spell them"
            )
            subprocess.run([*work, "commit", "--quiet", "--no-verify", "-m", message], check=True, env=env)
            # its nearest upstream tag too: builds that read their version from git (setuptools-scm) need one
            tag = nearest_tag(upstream, base_commit)
            if tag:
                subprocess.run([*git, "tag", tag], check=True, env=env)
        commit = _git(target, "rev-parse", "HEAD").strip()
        applied = {**report.mapping, **{n: flips[n] for n in by_reference}}
        result = Reconstruction(
            str(target),
            commit,
            base_commit,
            dict(sorted(applied.items())),
            kept,
            len(report.files_changed),
            by_reference,
            report.overruled,
            fix,
        )

        record.write_text(json.dumps(dataclasses.asdict(result), indent=2, sort_keys=True))
        return result


def _rename_by_reference(
    tree: Path, out: Path, flips: dict[str, str], sites: dict[str, list[tuple[int, int, str]]]
) -> dict[str, int]:
    """Rename in *out* every reference jedi finds (in the upstream *tree*, whose positions a case flip keeps) to the
    definitions that the *sites* of names in *flips* refer to; occurrences renamed per name."""
    import jedi

    if not flips:
        return {}
    # jedi and parso cache modules by path across projects; a previous rebuild's deleted tree made jedi raise
    # KeyError on requests' sessions.py
    import parso.cache

    jedi.cache.clear_time_caches(delete_all=True)
    parso.cache.parser_cache.clear()
    project = jedi.Project(tree, added_sys_path=[str(tree)], smart_sys_path=False, load_unsafe_extensions=False)
    scripts: dict[Path, jedi.Script] = {}

    def script(path: Path) -> jedi.Script:
        if path not in scripts:
            scripts[path] = jedi.Script(path=path, project=project)
        return scripts[path]

    edits: dict[Path, set[tuple[int, int, str]]] = {}
    done: set[tuple[Path, int, int]] = set()
    for relative, occurrences in sites.items():
        for line, column, name in occurrences:
            if name not in flips:
                continue
            for definition in _jedi(lambda: script(tree / relative).goto(line, column, follow_imports=True)):
                where = Path(definition.module_path) if definition.module_path else None
                if where is None or not where.is_relative_to(tree) or definition.line is None:
                    continue  # another package's: not ours to rename
                if (where, definition.line, definition.column) in done:
                    continue
                done.add((where, definition.line, definition.column))
                for reference in _jedi(
                    lambda: script(where).get_references(definition.line, definition.column, scope="project")
                ):
                    found = Path(reference.module_path) if reference.module_path else None
                    if found is not None and found.is_relative_to(tree) and reference.name == name:
                        edits.setdefault(found, set()).add((reference.line, reference.column, name))
    counts: dict[str, int] = {}
    for path, places in edits.items():
        target = out / path.relative_to(tree)
        lines = target.read_text(encoding="utf-8", errors="surrogateescape").splitlines(keepends=True)
        for line, column, name in places:
            text = lines[line - 1]
            if text[column : column + len(name)] == name:
                lines[line - 1] = text[:column] + flips[name] + text[column + len(name) :]
                counts[name] = counts.get(name, 0) + 1
        target.write_text("".join(lines), encoding="utf-8", errors="surrogateescape")
    return counts


def _jedi(query) -> list:
    """What a jedi query finds; nothing where jedi's inference fails inside (it raises AttributeError and the like on
    code it does not model): those names stay as upstream spells them, and are recorded."""
    try:
        return list(query())
    except Exception as exc:  # jedi's own errors have no common base
        log.warning("jedi failed on a reference query: %s: %s", type(exc).__name__, exc)
        return []


def _git(folder: Path, *args: str) -> str:
    completed = subprocess.run(["git", "-C", str(folder), *args], capture_output=True, text=True)
    if completed.returncode != 0:
        raise BenchsmithError(f"{folder}: git {' '.join(args)} failed: {completed.stderr.strip()[:200]}")
    return completed.stdout
