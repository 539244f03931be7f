"""Python repositories: their dependencies, environments (uv), extensions, and the removal of a class."""
