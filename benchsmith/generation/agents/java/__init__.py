"""The agents' repository tools over a Java classbench task's visible repository."""
