"""Every ``LINEAGE_*`` setting in one model, read from the environment once and passed down.

The CLI reads the settings once per command (its options override the environment) and makes
them :func:`current` for the library code it calls; library functions take ``settings=`` and
fall back to :func:`current`, which reads the environment at call time when no command is
running (tests and notebooks set variables and call functions directly). Nothing writes
settings back into ``os.environ``.

The model is a frozen dataclass and one table of variables (:data:`VARIABLES`), not a pydantic
model: every command reads its settings, and importing pydantic and building a settings model
took 0.45 s of each one, a quarter of a question's 2 s (issue 31).

README's settings table documents the same names, defaults and meanings.
"""

from __future__ import annotations

import dataclasses
import os
import re
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, NamedTuple

from lineage.errors import SettingsError

LOG_LEVELS = ("ALL", "DEBUG", "ERROR", "FATAL", "INFO", "OFF", "TRACE", "WARN")
MEMORY = re.compile(r"^[0-9]+([kmgtp]b?|b)?$", re.IGNORECASE)  # what Spark's byteStringAs reads
TRUE, FALSE = ("1", "on", "t", "true", "y", "yes"), ("0", "off", "f", "false", "n", "no")


class Invalid(ValueError):
    """A value a parser cannot use; the message says what it must be."""


def _text(value: Any) -> str:
    return str(value).strip()


def _integer(least: int | None = None) -> Callable[[Any], int]:
    def parse(value: Any) -> int:
        expected = "an integer" if least is None else f"an integer >= {least}"
        if isinstance(value, bool):
            raise Invalid(expected)
        try:
            number = value if isinstance(value, int) else int(str(value).strip())
        except ValueError:
            raise Invalid("an integer") from None
        if least is not None and number < least:
            raise Invalid(expected)
        return number

    return parse


def _flag(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    word = str(value).strip().lower()
    if word in TRUE or word in FALSE:
        return word in TRUE
    raise Invalid("true or false")


def _memory(auto: bool = False) -> Callable[[Any], str]:
    def parse(value: Any) -> str:
        text = _text(value)
        if auto and text.lower() == "auto":
            return "auto"
        if not MEMORY.match(text):
            raise Invalid("a size such as 512m or 4g" + (" (or auto)" if auto else ""))
        return text

    return parse


def _level(value: Any) -> str:
    if _text(value).upper() not in LOG_LEVELS:
        raise Invalid(f"one of {', '.join(LOG_LEVELS)}")
    return _text(value).upper()


def _path(value: Any) -> Path:
    return Path(value).expanduser()


class Variable(NamedTuple):
    """One setting: its environment variable, how its text is read, and what it is for."""

    name: str
    parse: Callable[[Any], Any]
    description: str


VARIABLES: dict[str, Variable] = {
    "graphframes": Variable("LINEAGE_GRAPHFRAMES", _text, "`auto` (the cached jar), a jar path, or a Maven coordinate"),
    "spark_master": Variable("LINEAGE_SPARK_MASTER", _text, "Spark master"),
    "shuffle_partitions": Variable("LINEAGE_SHUFFLE_PARTITIONS", _integer(1), "`spark.sql.shuffle.partitions`"),
    "driver_memory": Variable("LINEAGE_DRIVER_MEMORY", _memory(), "driver memory (local mode)"),
    "executor_memory": Variable("LINEAGE_EXECUTOR_MEMORY", _memory(), "each executor's memory on a cluster"),
    "cache": Variable("LINEAGE_CACHE", _path, "where the GraphFrames jar is cached"),
    "spark_progress": Variable("LINEAGE_SPARK_PROGRESS", _flag, "Spark's console progress bar"),
    "spark_log_level": Variable("LINEAGE_SPARK_LOG_LEVEL", _level, "Spark's log level"),
    "ingest_local_max_bytes": Variable("LINEAGE_INGEST_LOCAL_MAX_BYTES", _integer(0),
                                       "`ingest --engine auto` parses inputs up to this size in the driver"),
    "local_max_edges": Variable("LINEAGE_LOCAL_MAX_EDGES", _integer(),
                                "`--engine auto` analyses graphs up to this many edge rows in memory"),
    "local_memory": Variable("LINEAGE_LOCAL_MEMORY", _memory(auto=True),
                             "the most memory the local engine may hold (`auto`: what the system has)"),
}
"""Field name -> its variable; the case of a name matters (``lineage_cache`` is not read)."""


@dataclass(frozen=True)
class Settings:
    """One field per variable (:data:`VARIABLES`); frozen, so a run cannot change them midway.
    ``given``: the fields the environment or an option set (the others are defaults)."""

    graphframes: str = "auto"
    spark_master: str = "local[2]"
    shuffle_partitions: int = 4
    driver_memory: str = "4g"
    executor_memory: str = "1g"
    cache: Path = field(default_factory=lambda: Path.home() / ".cache" / "lineage")
    spark_progress: bool = False
    spark_log_level: str = "ERROR"
    ingest_local_max_bytes: int = 64 * 1024 * 1024
    local_max_edges: int = 500_000
    local_memory: str = "auto"
    given: frozenset[str] = frozenset()

    @classmethod
    def from_env(cls, **overrides: Any) -> "Settings":
        """The environment's settings, ``overrides`` (CLI options; ``None`` = not given) winning;
        an empty variable is not set. A value that cannot be used is a :class:`SettingsError`
        naming its variable."""
        unknown = set(overrides) - set(VARIABLES)
        if unknown:
            raise TypeError(f"not a setting: {', '.join(sorted(unknown))}")
        raw = {name: os.environ[v.name] for name, v in VARIABLES.items() if os.environ.get(v.name)}
        raw.update({name: value for name, value in overrides.items() if value is not None})
        return cls(**_parsed(raw), given=frozenset(raw))

    def replace(self, **changes: Any) -> "Settings":
        """These settings with ``changes`` (read as the environment's values are), marked given."""
        return dataclasses.replace(self, **_parsed(changes), given=self.given | set(changes))


def _parsed(raw: dict[str, Any]) -> dict[str, Any]:
    values = {}
    for name, value in raw.items():
        variable = VARIABLES[name]
        try:
            values[name] = variable.parse(value)
        except Invalid as exc:
            raise SettingsError(f"{variable.name} must be {exc}, not {value!r}") from None
    return values


_current: ContextVar[Callable[[], Settings] | None] = ContextVar("lineage_settings", default=None)


def current() -> Settings:
    """The settings of the running command, or (outside one) the environment's, read now."""
    load = _current.get()
    return load() if load is not None else Settings.from_env()


@contextmanager
def running(load: Callable[[], Settings]) -> Iterator[None]:
    """Make ``load()`` the :func:`current` settings for the code run inside (one CLI command)."""
    token = _current.set(load)
    try:
        yield
    finally:
        _current.reset(token)
