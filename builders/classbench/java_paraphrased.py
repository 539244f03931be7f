"""``classbench build --language java --paraphrase``: the Java tasks again, in a copy of the module whose identifiers
declared in the shortlisted classes are case-flipped (``paraphrase.java``: javac-bound, token-exact, library
overrides, reflection, resources and strings left alone, each exclusion with its rule).

The flipped copy is kept in the cache and built as a folder like any other repository, so its tasks evaluate
the same way; the card reports the share of the tests that passed before that still pass in it.
"""

from __future__ import annotations

import dataclasses
import shutil
import tempfile
from pathlib import Path

from benchsmith.core.config import cache_dir
from builders.classbench.paraphrased import _still_passing
from harness.java.maven_workspace import JavaSetup, JavaWorkspace, java_workspace
from harness.java.toolchain import junit_classpath, platform_classpath
from paraphrase.java.repository import paraphrase_java_repository
from sources.python_repo import source_tree

SEED = 0


def paraphrased_java_tasks(key: str, prepared: JavaWorkspace, options, tasks: list, suite: dict, build_tasks):
    """(tasks, report): the tasks rebuilt in the flipped copy, and what the flip did to names and tests."""
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
        report = paraphrase_java_repository(source, targets, out, SEED, classpath=classpath,
                                            release=prepared.setup.release or None)  # fmt: skip
    flip = report.mapping
    variant_key, variant_tree, _ = source_tree(str(out), None)
    setup = JavaSetup("", prepared.setup.classpath, prepared.setup.classpath_dir, prepared.setup.release)
    variant = java_workspace(variant_tree, variant_key, setup)
    only = tuple(f"{name.rsplit('.', 1)[0]}.{flip.get(name.rsplit('.', 1)[1], name.rsplit('.', 1)[1])}" if "." in name
                 else flip.get(name, name) for name in targets)  # fmt: skip
    variant_options = dataclasses.replace(options, repo=str(out), commit=None, module="", only=only, shortlisted=True)
    flipped, rejections, checks, flipped_suite, _ = build_tasks(variant_key, variant, variant_options)
    kept, before, lost = _still_passing(suite, flipped_suite, flip)
    return [dataclasses.replace(t, paraphrased=True) for t in flipped], {
        "run": True,
        "seed": SEED,
        "names_flipped": len(flip),
        "names_excluded": len(report.excluded),
        "exclusions_by_rule": _by_rule(report.excluded),
        "exclusions": {name: f"{e.rule}: {e.detail}" for name, e in report.excluded.items()},
        "mapping": flip,
        "tests_passing_before": before,
        "still_passing_after": kept,
        "still_passing_share": round(kept / before, 4) if before else None,
        "no_longer_passing": lost,
        "test_classes_left_out_after": variant.excluded_tests,  # in the flipped copy: names the flip left unbound
        "main_classes_left_out_after": variant.excluded_main,
        "tasks_before": len(tasks),
        "tasks_after": len(flipped),
        "rejected_after": rejections,
    }


def _by_rule(excluded: dict) -> dict[str, int]:
    counts: dict[str, int] = {}
    for exclusion in excluded.values():
        counts[exclusion.rule] = counts.get(exclusion.rule, 0) + 1
    return dict(sorted(counts.items()))
