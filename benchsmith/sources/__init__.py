"""The code being benchmarked: where it comes from and how it is read.

Defects4J's metadata, upstream git histories and patches; Java source spans
and comments; Python repositories, their environments and the removal and
insertion of a class. Building (``builders``) and judging (``harness``) both
stand on this layer; it imports nothing of theirs.
"""
