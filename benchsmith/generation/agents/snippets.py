"""Snippets of a repository and their ranking by embedding similarity (RepoClassBench paper: get_related_snippets, the
RAG baselines).

A file is cut into windows of ``WINDOW`` lines every ``STRIDE`` lines, as
RepoCoder (which the RepoClassBench paper compares against) cuts its retrieval corpus. Texts
are embedded through ``benchsmith.generation.models.embeddings`` (its on-disk cache: a text is
embedded once, ever) and an index keeps its matrix in memory, so a second query
on the same corpus embeds only the query.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from benchsmith.generation.models.base import Embedder
from benchsmith.generation.models.embeddings import embed_all

WINDOW = 20
STRIDE = 10


@dataclass(frozen=True)
class Snippet:
    path: str  # relative to the repository
    start: int  # first line, 1-based
    end: int  # last line, inclusive
    text: str

    def render(self) -> str:
        return f"# File: {self.path} (lines {self.start}-{self.end})\n{self.text}"


def cut_snippets(files: dict[str, str], window: int = WINDOW, stride: int = STRIDE) -> list[Snippet]:
    """Every file's overlapping windows of lines, in path order; windows of blank lines only are dropped."""
    snippets = []
    for path in sorted(files):
        lines = files[path].splitlines()
        for start in range(0, max(len(lines) - window + stride, 1), stride):
            chunk = lines[start : start + window]
            if any(line.strip() for line in chunk):
                snippets.append(Snippet(path, start + 1, start + len(chunk), "\n".join(chunk)))
    return snippets


class EmbeddingIndex:
    """Texts embedded once (lazily, at the first query); queries ranked by cosine similarity."""

    def __init__(self, embedder: Embedder, texts: Sequence[str]) -> None:
        self.embedder = embedder
        self.texts = list(texts)
        self._matrix: np.ndarray | None = None

    def _vectors(self) -> np.ndarray:
        if self._matrix is None:
            matrix = embed_all(self.embedder, self.texts) if self.texts else np.zeros((0, 1))
            norms = np.linalg.norm(matrix, axis=1, keepdims=True)
            self._matrix = matrix / np.where(norms == 0, 1, norms)
        return self._matrix

    def scores(self, query: str) -> np.ndarray:
        matrix = self._vectors()
        if not len(self.texts):
            return np.zeros(0)
        vector = embed_all(self.embedder, [query])[0]
        return matrix @ (vector / (np.linalg.norm(vector) or 1))

    def top(self, query: str, k: int) -> list[int]:
        """The indices of the *k* texts most similar to *query*, best first (ties: the earlier text first)."""
        scores = self.scores(query)
        # Rounded so that the last bits of a float, which differ between machines, never reorder a tie.
        return sorted(range(len(scores)), key=lambda i: (-round(float(scores[i]), 6), i))[:k]
