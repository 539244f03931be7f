"""``classbench build --paraphrase``: a copy of the repository whose identifiers are case-flipped, to build the tasks
again from.

Every identifier that appears in a shortlisted class is case-flipped across
the repository (RepoClassBench paper, E.1.3, through ``benchsmith.paraphrase``); the build
then builds its tasks from the flipped copy, in the same environment, and checks it by running its test suite (the
share of previously passing tests that still pass, :func:`benchsmith.builders.classbench.paraphrased.flip_report`).
"""

from __future__ import annotations

import dataclasses
import shutil
from dataclasses import dataclass

from benchsmith.builders.classbench.paraphrased import SEED
from benchsmith.paraphrase.python.collect import collect_identifiers
from benchsmith.paraphrase.python.index import build_index
from benchsmith.paraphrase.python.repository import paraphrase_repository
from benchsmith.paraphrase.python.source import load_repository
from benchsmith.sources.checkout import private_cache_dir
from benchsmith.sources.python.repo import Repository


@dataclass(frozen=True)
class FlippedRepository:
    repo: Repository  # the flipped copy, as a repository of its own
    only: set[str]  # the shortlisted classes under their flipped names ("path::Class")
    mapping: dict[str, str]  # name -> flipped name
    excluded: int  # names kept, each for a rule


def flipped_repository(repo: Repository, targets: list[tuple[str, str]]) -> FlippedRepository:
    """*repo* with every identifier of the classes *targets* (``(file path, class name)``) flipped where safe."""
    index = build_index(load_repository(repo.tree))
    names = collect_identifiers(index, targets)
    out = private_cache_dir("paraphrased") / f"{repo.key}-s{SEED}"  # a whole tree with the ground truth: root's only
    shutil.rmtree(out, ignore_errors=True)
    report = paraphrase_repository(repo.tree, out, names, SEED, index=index)
    flip = report.mapping
    variant = dataclasses.replace(repo, spec=str(out), key=f"{repo.key}-paraphrased-s{SEED}", tree=out)
    only = {f"{path}::{flip.get(name, name)}" for path, name in targets}
    return FlippedRepository(variant, only, flip, len(report.excluded))
