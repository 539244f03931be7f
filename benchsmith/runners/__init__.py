"""Running candidates: the sandbox, and the Java and Python runners that judge inside it. Nothing here produces a
candidate."""
