"""Expected errors: one family, so the CLI maps them to an exit status in one place.

An expected error is one the user can act on (a missing file, a bad time, a graph not built
yet, an unreachable server): one line on stderr, no traceback unless ``--debug``. Anything else
is a bug and exits 1 as an internal error. Each class says its exit status and how its line
reads; subclasses are named after what went wrong, in the module where it goes wrong.
"""

from __future__ import annotations


class LineageError(Exception):
    """An expected failure whose message says what happened and what to do."""

    exit_code = 1
    line = "lineage: {}"
    """The stderr line, ``{}`` being the message."""


class UsageError(LineageError, ValueError):
    """Bad usage or bad input (exit 2). A ``ValueError`` too, so callers of the Python API that
    catch ``ValueError`` keep working."""

    exit_code = 2
    line = "Error: {}"  # how click reports bad usage, so every usage error reads the same


class SettingsError(UsageError):
    """A ``LINEAGE_*`` setting with a value that cannot be used; the message names the variable."""


class SetupError(LineageError, RuntimeError):
    """The machine lacks something Spark needs (Java, the GraphFrames jar); the message says how
    to fix it. Exit 2: the command cannot run here as invoked."""

    exit_code = 2
    line = "lineage: setup error: {}"


class OutOfMemory(LineageError):
    """An engine ran out of memory (``lineage.spark.explain``): exit 1, and the message names
    the setting to raise or the other engine to try."""

    exit_code = 1
    line = "lineage: {}"
