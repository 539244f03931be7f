"""Java source as the builds and runners read it: spans, comments, declarations, Maven's model of a module."""
