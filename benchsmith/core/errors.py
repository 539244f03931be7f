"""The errors benchsmith reports to its users as one line, without a traceback."""

from __future__ import annotations


class BenchsmithError(Exception):
    """A problem with the user's input or environment; the message names the input and what is wrong."""


class JavaParseError(BenchsmithError):
    """Java source that javalang cannot tokenize or parse."""


class PatchError(BenchsmithError):
    """A Defects4J patch that is missing, malformed or does not apply."""


class SourceUnavailable(BenchsmithError):
    """A project's history cannot be had (no repository, no network, an unsupported VCS)."""


class Terminated(KeyboardInterrupt):
    """The harness was asked to stop (SIGTERM or Ctrl-C) while it ran: its runs are stopped and it unwinds as after
    Ctrl-C, so that no run's processes, servers or folders outlive it. ``args[0]`` names the signal."""
