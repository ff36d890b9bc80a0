"""Every ``LINEAGE_*`` setting in one model, read from the environment once and passed down.

The CLI reads the settings once per command (its options override the environment) and makes
them :func:`current` for the library code it calls; library functions take ``settings=`` and
fall back to :func:`current`, which reads the environment at call time when no command is
running (tests and notebooks set variables and call functions directly). Nothing writes
settings back into ``os.environ``.

README's settings table documents the same names, defaults and meanings.
"""

from __future__ import annotations

import re
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Callable, Iterator

from pydantic import Field, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from lineage.errors import SettingsError

LOG_LEVELS = ("ALL", "DEBUG", "ERROR", "FATAL", "INFO", "OFF", "TRACE", "WARN")
MEMORY = re.compile(r"^[0-9]+([kmgtp]b?|b)?$", re.IGNORECASE)  # what Spark's byteStringAs reads


class Settings(BaseSettings):
    """One field per variable (its alias); frozen, so a run cannot change them midway."""

    model_config = SettingsConfigDict(case_sensitive=True, env_ignore_empty=True, populate_by_name=True,
                                      extra="ignore", frozen=True)

    graphframes: str = Field("auto", validation_alias="LINEAGE_GRAPHFRAMES",
                             description="`auto` (the cached jar), a jar path, or a Maven coordinate")
    spark_master: str = Field("local[2]", validation_alias="LINEAGE_SPARK_MASTER", description="Spark master")
    shuffle_partitions: int = Field(4, ge=1, validation_alias="LINEAGE_SHUFFLE_PARTITIONS",
                                    description="`spark.sql.shuffle.partitions`")
    driver_memory: str = Field("4g", validation_alias="LINEAGE_DRIVER_MEMORY", description="driver memory (local mode)")
    cache: Path = Field(default_factory=lambda: Path.home() / ".cache" / "lineage", validation_alias="LINEAGE_CACHE",
                        description="where the GraphFrames jar is cached")
    spark_progress: bool = Field(False, validation_alias="LINEAGE_SPARK_PROGRESS",
                                 description="Spark's console progress bar")
    spark_log_level: str = Field("ERROR", validation_alias="LINEAGE_SPARK_LOG_LEVEL", description="Spark's log level")
    ingest_local_max_bytes: int = Field(64 * 1024 * 1024, ge=0, validation_alias="LINEAGE_INGEST_LOCAL_MAX_BYTES",
                                        description="`ingest --engine auto` parses inputs up to this size in the driver")
    local_max_edges: int = Field(500_000, validation_alias="LINEAGE_LOCAL_MAX_EDGES",
                                 description="`--engine auto` analyses graphs up to this many edge rows in memory")
    local_memory: str = Field("auto", validation_alias="LINEAGE_LOCAL_MEMORY",
                              description="the most memory the local engine may hold (`auto`: what the system has)")

    @field_validator("graphframes", "spark_master")
    @classmethod
    def _stripped(cls, value: str) -> str:
        return value.strip()

    @field_validator("driver_memory", "local_memory")
    @classmethod
    def _memory(cls, value: str, info: Any) -> str:
        if info.field_name == "local_memory" and value.strip().lower() == "auto":
            return "auto"
        if not MEMORY.match(value.strip()):
            raise ValueError("a size such as 512m or 4g" + (" (or auto)" if info.field_name == "local_memory" else ""))
        return value.strip()

    @field_validator("spark_log_level")
    @classmethod
    def _level(cls, value: str) -> str:
        if value.strip().upper() not in LOG_LEVELS:
            raise ValueError(f"one of {', '.join(LOG_LEVELS)}")
        return value.strip().upper()

    @field_validator("cache")
    @classmethod
    def _home(cls, value: Path) -> Path:
        return value.expanduser()

    @classmethod
    def from_env(cls, **overrides: Any) -> "Settings":
        """The environment's settings, ``overrides`` (CLI options; ``None`` = not given) winning.
        A value that cannot be used is a :class:`SettingsError` naming its variable."""
        given = {name: value for name, value in overrides.items() if value is not None}
        try:
            return cls(**given)
        except ValidationError as exc:
            raise SettingsError(_one_line(exc)) from None


_EXPECTED = {"int_parsing": "an integer", "bool_parsing": "true or false", "int_from_float": "an integer"}


def _one_line(exc: ValidationError) -> str:
    """``LINEAGE_X must be <what>, not '<value>'`` for the first bad variable."""
    error = exc.errors(include_url=False)[0]
    variable = str(error["loc"][0])
    context = error.get("ctx") or {}
    if error["type"] in _EXPECTED:
        expected = _EXPECTED[error["type"]]
    elif "ge" in context:
        expected = f"an integer >= {context['ge']}"
    elif error["type"] == "value_error":
        expected = str(context.get("error", error["msg"]))
    else:
        expected = error["msg"].lower()
    return f"{variable} must be {expected}, not {error['input']!r}"


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
