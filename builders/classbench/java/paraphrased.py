"""``classbench build --language java --paraphrase``: the Java tasks again, in a copy of the module whose identifiers
declared in the shortlisted classes are case-flipped (``benchsmith.paraphrase.java``: javac-bound, token-exact, library
overrides, reflection, resources and strings left alone, each exclusion with its rule).

The flipped copy is kept in the cache and built as a folder like any other repository, so its tasks evaluate
the same way; the card reports the share of the tests that passed before that still pass in it.
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from benchsmith.builders.classbench.paraphrased import SEED, flip_report
from benchsmith.core.config import cache_dir
from benchsmith.paraphrase.java.repository import paraphrase_java_repository
from benchsmith.runners.java.maven_workspace import JavaSetup, JavaWorkspace, java_workspace
from benchsmith.runners.java.toolchain import junit_classpath, platform_classpath
from benchsmith.sources.checkout import source_tree


@dataclass(frozen=True)
class FlippedModule:
    folder: Path  # the flipped copy of the module's tree, built as a repository of its own
    key: str
    workspace: JavaWorkspace  # the flipped copy, built as a workspace of its own
    only: tuple[str, ...]  # the shortlisted classes under their flipped qualified names
    mapping: dict[str, str]  # name -> flipped name
    excluded: dict  # name -> the exclusion that kept it, with its rule

    def report(
        self, before: dict[str, str], after: dict[str, str], tasks_before: int, tasks_after: int, rejected_after: dict
    ) -> dict:
        """The card's ``paraphrase`` section: what the flip did to names and to the tests (*before*, *after*: the
        suite's outcomes on the module and on its flipped copy)."""
        return {
            **flip_report(self.mapping, len(self.excluded), before, after),
            "exclusions_by_rule": _by_rule(self.excluded),
            "exclusions": {name: f"{e.rule}: {e.detail}" for name, e in self.excluded.items()},
            "test_classes_left_out_after": self.workspace.excluded_tests,  # names the flip left unbound
            "main_classes_left_out_after": self.workspace.excluded_main,
            "tasks_before": tasks_before,
            "tasks_after": tasks_after,
            "rejected_after": rejected_after,
        }


def flipped_module(key: str, prepared: JavaWorkspace, tasks: list) -> FlippedModule:
    """A copy of *prepared*'s module with every identifier the classes of *tasks* declare flipped where javac binds
    it, built as a workspace."""
    targets = [f"{t.module}.{t.class_name}" if t.module else t.class_name for t in tasks]  # qualified names
    out = cache_dir("classbench-java", "paraphrased") / f"{key}-s{SEED}"  # holds every ground truth: root's only
    cache_dir("classbench-java", "paraphrased").chmod(0o700)
    shutil.rmtree(out, ignore_errors=True)
    classpath = [*map(Path, prepared.libraries), *junit_classpath(), *platform_classpath()]
    # javac binds every occurrence only in sources it can attribute: the test classes the workspace left out (they do
    # not compile here) would leave names unbound elsewhere, so the flip reads the tree without them.
    with tempfile.TemporaryDirectory(prefix="paraphrase-input-", dir=out.parent) as scratch:
        source = Path(scratch) / "tree"
        shutil.copytree(prepared.workspace.tree, source, symlinks=True)
        for name in prepared.excluded_tests:
            (source / "src" / "test" / "java" / (name.replace(".", "/") + ".java")).unlink(missing_ok=True)
        report = paraphrase_java_repository(
            source, targets, out, SEED, classpath=classpath, release=prepared.setup.release or None
        )
    flip = report.mapping
    variant_key, variant_tree, _ = source_tree(str(out), None)
    setup = JavaSetup("", prepared.setup.classpath, prepared.setup.classpath_dir, prepared.setup.release)
    only = tuple(
        f"{name.rsplit('.', 1)[0]}.{flip.get(name.rsplit('.', 1)[1], name.rsplit('.', 1)[1])}"
        if "." in name
        else flip.get(name, name)
        for name in targets
    )
    return FlippedModule(
        out, variant_key, java_workspace(variant_tree, variant_key, setup), only, flip, report.excluded
    )


def _by_rule(excluded: dict) -> dict[str, int]:
    counts: dict[str, int] = {}
    for exclusion in excluded.values():
        counts[exclusion.rule] = counts.get(exclusion.rule, 0) + 1
    return dict(sorted(counts.items()))
