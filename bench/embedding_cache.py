"""Seconds to load an agent task's snippet index from a warm embedding cache: one .npy per text against segments.

The texts are a real repository's snippet windows (``benchsmith.generation.agents.snippets.cut_snippets`` over its .py
files,
this project's own by default), each with a vector of the model's size (384). The same vectors are stored the way
the cache kept them before (one ``.npy`` per text, named by its sha256) and the way it keeps them now (segment
files of ``BATCH_SIZE`` vectors, as ``embed_all`` writes them, merged past 32); each layout is then read cold, in
a fresh process, for every text, as a task's ``EmbeddingIndex`` does at its first query. Prints both medians and
their ratio. The embedder is not what is measured: no model runs.

    python bench/embedding_cache.py [--tree DIR] [--repeat 5]
"""

from __future__ import annotations

import argparse
import hashlib
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchsmith.generation.agents.snippets import cut_snippets  # noqa: E402
from benchsmith.generation.models.embeddings import BATCH_SIZE  # noqa: E402

READ = r"""
import hashlib, sys, time
from pathlib import Path
import numpy as np
layout, folder, texts_file = sys.argv[1], Path(sys.argv[2]), sys.argv[3]
texts = Path(texts_file).read_text().split("\0")
import os
os.environ["BENCHSMITH_CACHE"] = str(folder)
# imported before the clock starts, as an agent run has it
from benchsmith.generation.models.embeddings import EmbeddingCache
started = time.perf_counter()
if layout == "per-text":
    vectors = []
    for text in texts:
        digest = hashlib.sha256(text.encode()).hexdigest()
        vectors.append(np.load(folder / digest[:2] / f"{digest}.npy", allow_pickle=False))
    matrix = np.array(vectors)
else:
    class Identity:
        name, model, revision = "bench", "bench", "1"
    found = EmbeddingCache(Identity()).get_many(texts)
    matrix = np.array([found[t] for t in texts])
print(time.perf_counter() - started, matrix.shape[0])
"""


class Identity:
    name, model, revision = "bench", "bench", "1"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, default=ROOT)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    files = {
        str(p.relative_to(args.tree)): p.read_text(errors="replace")
        for p in sorted(args.tree.rglob("*.py"))
        if ".venv" not in p.parts and "__pycache__" not in p.parts
    }
    texts = list(dict.fromkeys(s.text for s in cut_snippets(files)))
    rng = np.random.default_rng(0)
    vectors = rng.standard_normal((len(texts), 384)).astype(np.float32)
    with tempfile.TemporaryDirectory() as scratch:
        scratch = Path(scratch)
        per_text = scratch / "per-text"
        for text, vector in zip(texts, vectors):
            digest = hashlib.sha256(text.encode()).hexdigest()
            (per_text / digest[:2]).mkdir(parents=True, exist_ok=True)
            np.save(per_text / digest[:2] / f"{digest}.npy", vector, allow_pickle=False)
        segments = scratch / "segments"
        import os

        os.environ["BENCHSMITH_CACHE"] = str(segments)
        from benchsmith.generation.models.embeddings import EmbeddingCache

        cache = EmbeddingCache(Identity())
        for start in range(0, len(texts), BATCH_SIZE):
            cache.put_many(texts[start : start + BATCH_SIZE], vectors[start : start + BATCH_SIZE])
        texts_file = scratch / "texts"
        texts_file.write_text("\0".join(texts))
        seconds: dict[str, list[float]] = {"per-text": [], "segments": []}
        for _ in range(args.repeat):
            for layout, folder in (("per-text", per_text), ("segments", segments)):
                subprocess.run(["sync"], check=False)
                done = subprocess.run(
                    [sys.executable, "-c", READ, layout, str(folder), str(texts_file)],
                    cwd=ROOT,
                    capture_output=True,
                    text=True,
                    check=True,
                )
                took, count = done.stdout.split()
                assert int(count) == len(texts)
                seconds[layout].append(float(took))
        files_now = len(list(cache.folder.glob("segment-*.npz")))
    before, after = statistics.median(seconds["per-text"]), statistics.median(seconds["segments"])
    print(f"{len(texts)} snippet windows of {args.tree}; {args.repeat} cold reads of each layout in fresh processes")
    print(f"one .npy per text ({len(texts)} files): median {before:.3f} s")
    print(f"segments ({files_now} files):           median {after:.3f} s")
    print(f"ratio: {before / after:.1f}x")


if __name__ == "__main__":
    main()
