"""benchsmith: rebuild code-generation benchmarks from real repositories and score models on them."""

__version__ = "0.1.0"
