"""The agents' repository tools over a Python classbench task's visible repository, resolved by jedi."""
