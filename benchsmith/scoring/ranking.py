"""``benchsmith rank``: order each bug's candidate fixes by embedding similarity to its buggy method (Defects4J-NL2Fix
paper, 4.4).

The paper's recipe, kept here:

* similarity is the cosine between the embeddings of the instance's anchor
  and of the candidate. The benchmark names the anchor
  (:meth:`benchsmith.benchmarks.Benchmark.ranking_anchor`): for NL2Fix, the buggy
  method as the model was shown it; the candidate is taken as submitted;
* candidates whose similarity is below the threshold are pruned: 0.95 in the
  paper, which was the median of its ada-002 similarities and then fixed
  across models; ``"median"`` recomputes that median over every candidate of
  the file, which suits an embedder whose similarities spread differently;
* the rest are shown lowest similarity first, so that near-copies of the
  buggy code (similarity 1.0) come last; ties go to the smaller candidate id.

A recommender should not show one fix twice: candidates whose code is the
same once runs of white space are collapsed share one rank (the place of
the first of them). Ranks count within an instance and run (model,
strategy), the grouping the report uses, so runs in one file do not mix.
"""

from __future__ import annotations

import logging
import re
import statistics
from collections import defaultdict
from pathlib import Path

import numpy as np

from benchsmith.benchmarks import benchmark_of
from benchsmith.core.errors import BenchsmithError
from benchsmith.core.export import write_records
from benchsmith.core.schema import Candidate, RankedCandidate, read_candidates
from benchsmith.generation.models.base import Embedder
from benchsmith.generation.models.embeddings import embed_all, embedder_label, get_embedder

log = logging.getLogger(__name__)

Threshold = float | str  # a cosine, or "median"


def parse_threshold(text: str) -> Threshold:
    if text == "median":
        return "median"
    try:
        value = float(text)
    except ValueError:
        raise BenchsmithError(f"--threshold {text}: expected a number between -1 and 1, or 'median'") from None
    if not -1.0 <= value <= 1.0:
        raise BenchsmithError(f"--threshold {text}: a cosine similarity lies between -1 and 1")
    return value


def cosine_similarities(reference: np.ndarray, vectors: np.ndarray) -> np.ndarray:
    """The cosine between *reference* and each row of *vectors*."""
    norms = np.linalg.norm(vectors, axis=1) * np.linalg.norm(reference)
    if not norms.all():
        raise BenchsmithError("cosine similarity of a zero vector: the embedder returned an empty embedding")
    return np.clip(vectors @ reference / norms, -1.0, 1.0)


def normalised_code(code: str) -> str:
    """The code with every run of white space made one space: the key under which duplicates collapse."""
    return re.sub(r"\s+", " ", code).strip()


def resolve_threshold(threshold: Threshold, similarities: list[float]) -> float:
    if threshold == "median":
        if not similarities:
            raise BenchsmithError("threshold median: there are no candidates to take the median of")
        return statistics.median(similarities)
    if isinstance(threshold, str):
        return parse_threshold(threshold)  # type: ignore[return-value]
    return float(threshold)


def order_group(
    candidates: list[Candidate], similarity: dict[str, float], threshold: float, embedder: str
) -> list[RankedCandidate]:
    """Rank the candidates of one instance and run; the result is in the order given."""
    kept = sorted(
        (c for c in candidates if similarity[c.candidate_id] >= threshold),
        key=lambda c: (similarity[c.candidate_id], c.candidate_id),
    )
    rank_of_code: dict[str, int] = {}
    rank_of: dict[str, int] = {}
    for candidate in kept:
        key = normalised_code(candidate.code)
        rank_of[candidate.candidate_id] = rank_of_code.setdefault(key, len(rank_of_code) + 1)
    return [
        RankedCandidate(
            instance_id=c.instance_id,
            candidate_id=c.candidate_id,
            similarity=similarity[c.candidate_id],
            rank=rank_of.get(c.candidate_id, -1),
            pruned=c.candidate_id not in rank_of,
            embedder=embedder,
        )
        for c in candidates
    ]


def rank(
    dataset: Path, candidates: Path, embedder: Embedder | str = "minilm", threshold: Threshold = "median"
) -> list[RankedCandidate]:
    """Every candidate of *candidates* with its similarity, rank and whether it was pruned, in the file's order."""
    if isinstance(embedder, str):
        embedder = get_embedder(embedder)
    anchors = _anchors(dataset)
    rows = read_candidates(candidates)
    if not rows:
        raise BenchsmithError(f"{candidates}: no candidates to rank")
    seen: set[tuple[str, str]] = set()
    for row in rows:
        if row.instance_id not in anchors:
            raise BenchsmithError(f"{candidates}: unknown instance {row.instance_id!r} (not in {dataset})")
        if (row.instance_id, row.candidate_id) in seen:
            raise BenchsmithError(f"{candidates}: candidate id {row.candidate_id!r} repeats for {row.instance_id}")
        seen.add((row.instance_id, row.candidate_id))

    anchor_ids = sorted({row.instance_id for row in rows})
    texts = [anchors[i] for i in anchor_ids] + [row.code for row in rows]
    vectors = embed_all(embedder, texts)
    anchor = dict(zip(anchor_ids, vectors[: len(anchor_ids)]))
    similarity_of: dict[tuple[str, str], float] = {}
    for row, vector in zip(rows, vectors[len(anchor_ids) :]):
        similarity_of[(row.instance_id, row.candidate_id)] = float(
            cosine_similarities(anchor[row.instance_id], vector[None, :])[0]
        )
    cut = resolve_threshold(threshold, list(similarity_of.values()))
    log.info("threshold %.4f (%s) over %d candidates", cut, threshold, len(rows))

    groups: dict[tuple[str, str, str], list[Candidate]] = defaultdict(list)
    for row in rows:
        groups[(row.instance_id, row.model, row.strategy)].append(row)
    label = embedder_label(embedder)
    ranked: dict[tuple[str, str], RankedCandidate] = {}
    for (instance_id, _, _), group in groups.items():
        similarity = {c.candidate_id: similarity_of[(instance_id, c.candidate_id)] for c in group}
        for record in order_group(group, similarity, cut, label):
            ranked[(record.instance_id, record.candidate_id)] = record
    return [ranked[(row.instance_id, row.candidate_id)] for row in rows]


def rank_to_file(
    dataset: Path, candidates: Path, out: Path, embedder: str = "minilm", threshold: Threshold = "median"
) -> list[RankedCandidate]:
    records = rank(dataset, candidates, embedder, threshold)
    write_records(out, records, RankedCandidate, benchmark=benchmark_of(dataset).name)
    return records


def _anchors(dataset: Path) -> dict[str, str]:
    """Each instance's anchor text; a benchmark without anchors cannot be ranked."""
    benchmark = benchmark_of(dataset)
    texts = {iid: benchmark.ranking_anchor(record) for iid, record in benchmark.load(dataset).items()}
    anchors = {iid: text for iid, text in texts.items() if text is not None}
    if len(anchors) != len(texts):
        raise BenchsmithError(
            f"{dataset}: a {benchmark.name} dataset; ranking needs a benchmark whose instances have "
            "a text to compare candidates with (NL2Fix: the buggy method)"
        )
    return anchors
