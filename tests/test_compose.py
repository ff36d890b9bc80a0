"""docker-compose.yml (Neo4j 5 + JupyterLab for users): what users rely on, checked statically.

No Docker engine runs in CI, so the file is parsed with PyYAML and its ``${VAR}`` interpolation is
resolved here with compose's rules. Only the last test needs ``docker compose`` and is skipped
without it.
"""

from __future__ import annotations

import fnmatch
import os
import re
import shlex
import shutil
import subprocess
import tomllib
from pathlib import Path, PurePosixPath
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
COMPOSE = ROOT / "docker-compose.yml"

REQUIRED_VARS = {"NEO4J_PASSWORD", "JUPYTER_TOKEN"}  # secrets: must be given, never defaulted
DOCUMENTED_VARS = REQUIRED_VARS | {"LINEAGE_BIND_ADDRESS", "LINEAGE_UID", "LINEAGE_GID"}
DUMMY = {"NEO4J_PASSWORD": "pw-from-env-1234", "JUPYTER_TOKEN": "token-from-env-5678"}

# $$ | ${NAME} ${NAME:-x} ${NAME-x} ${NAME:?x} ${NAME?x} ${NAME:+x} ${NAME+x} | $NAME | anything else is invalid
_INTERPOLATION = re.compile(
    r"\$(?:(?P<escaped>\$)"
    r"|\{(?P<braced>[A-Za-z_][A-Za-z0-9_]*)(?:(?P<op>:?[-?+])(?P<arg>[^}]*))?\}"
    r"|(?P<named>[A-Za-z_][A-Za-z0-9_]*)"
    r"|(?P<invalid>))"
)


class MissingVariable(Exception):
    pass


def _interpolate(text: str, env: dict[str, str]) -> str:
    def one(m: re.Match[str]) -> str:
        if m.group("escaped"):
            return "$"
        if m.group("invalid") is not None:
            raise ValueError(f"invalid interpolation at {text[m.start():m.start() + 20]!r}")
        name = m.group("braced") or m.group("named")
        op, arg = m.group("op"), m.group("arg") or ""
        value = env.get(name)
        unset_or_empty = value is None or (op is not None and op.startswith(":") and value == "")
        if op in ("-", ":-"):
            return arg if unset_or_empty else value
        if op in ("?", ":?"):
            if unset_or_empty:
                raise MissingVariable(f"{name}: {arg}")
            return value
        if op in ("+", ":+"):
            return "" if unset_or_empty else arg
        return value or ""

    return _INTERPOLATION.sub(one, text)


def _walk_strings(node: Any):
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _walk_strings(key)
            yield from _walk_strings(value)
    elif isinstance(node, list):
        for item in node:
            yield from _walk_strings(item)
    elif isinstance(node, str):
        yield node


def _resolve(node: Any, env: dict[str, str]) -> Any:
    """Compose interpolates values after parsing the YAML."""
    if isinstance(node, dict):
        return {key: _resolve(value, env) for key, value in node.items()}
    if isinstance(node, list):
        return [_resolve(item, env) for item in node]
    if isinstance(node, str):
        return _interpolate(node, env)
    return node


def _environment(service: dict[str, Any]) -> dict[str, str]:
    env = service.get("environment") or {}
    if isinstance(env, list):  # ["KEY=value", ...]
        env = dict(item.split("=", 1) if "=" in item else (item, None) for item in env)
    return {str(k): ("" if v is None else str(v)) for k, v in env.items()}


def _ports(service: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(host_ip, published, target) of each published port, short or long syntax."""
    out = []
    for port in service.get("ports") or []:
        if isinstance(port, dict):
            out.append((str(port.get("host_ip", "")), str(port.get("published", "")), str(port["target"])))
            continue
        spec = str(port).split("/")[0]
        parts = spec.rsplit(":", 2)
        if len(parts) == 3:
            out.append((parts[0].strip("[]"), parts[1], parts[2]))
        elif len(parts) == 2:
            out.append(("", parts[0], parts[1]))
        else:
            out.append(("", "", parts[0]))
    return out


def _mounts(service: dict[str, Any]) -> list[tuple[str, str]]:
    """(source, target) of each volume entry, short or long syntax."""
    out = []
    for volume in service.get("volumes") or []:
        if isinstance(volume, dict):
            out.append((str(volume.get("source", "")), str(volume["target"])))
        else:
            parts = str(volume).split(":")
            out.append((parts[0], parts[1]) if len(parts) > 1 else ("", parts[0]))
    return out


def _header() -> str:
    lines = []
    for line in COMPOSE.read_text().splitlines():
        if not line.startswith("#") and line.strip():
            break
        lines.append(line)
    return "\n".join(lines)


@pytest.fixture(scope="module")
def raw() -> dict[str, Any]:
    return yaml.safe_load(COMPOSE.read_text())


@pytest.fixture(scope="module")
def resolved(raw) -> dict[str, Any]:
    """The file as compose sees it with only the required secrets set (every default in effect)."""
    return _resolve(raw, dict(DUMMY))


def _build_paths(raw: dict[str, Any]) -> tuple[Path, Path]:
    build = raw["services"]["jupyter"]["build"]
    context = ROOT / build["context"]
    return context, context / build.get("dockerfile", "Dockerfile")


@pytest.fixture(scope="module")
def dockerfile(raw) -> tuple[Path, list[tuple[str, str]]]:
    context, path = _build_paths(raw)
    if not path.is_file():
        pytest.fail(f"jupyter build Dockerfile missing: {path}")
    text = re.sub(r"\\\n", " ", path.read_text())  # join continuation lines
    instructions = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            keyword, _, rest = line.partition(" ")
            instructions.append((keyword.upper(), rest.strip()))
    return context, instructions


def test_two_services(raw):
    assert {"neo4j", "jupyter"} <= set(raw["services"])


def test_neo4j_image_is_a_pinned_5x_community_image(raw):
    image = raw["services"]["neo4j"]["image"]
    assert re.fullmatch(r"(docker\.io/)?(library/)?neo4j:5\.\d+(\.\d+)?-community", image), (
        f"{image!r}: want a pinned Neo4j 5.x community tag such as neo4j:5.26-community"
    )


def test_ports_published_on_loopback_by_default(resolved):
    neo4j = {target: (ip, published) for ip, published, target in _ports(resolved["services"]["neo4j"])}
    assert neo4j.get("7474") == ("127.0.0.1", "7474"), "Browser (7474) must be published on 127.0.0.1:7474"
    assert neo4j.get("7687") == ("127.0.0.1", "7687"), "Bolt (7687) must be published on 127.0.0.1:7687"
    jupyter = {target: (ip, published) for ip, published, target in _ports(resolved["services"]["jupyter"])}
    assert jupyter.get("8888") == ("127.0.0.1", "8888"), "JupyterLab (8888) must be published on 127.0.0.1:8888"
    for name, service in resolved["services"].items():
        for ip, published, target in _ports(service):
            assert ip == "127.0.0.1", f"{name} publishes {target} on all interfaces by default"


def test_neo4j_auth_comes_from_the_environment(raw, resolved):
    auth = _environment(raw["services"]["neo4j"])["NEO4J_AUTH"]
    assert re.fullmatch(r"neo4j/\$\{NEO4J_PASSWORD:\?[^}]+\}", auth), f"NEO4J_AUTH={auth!r}"
    assert _environment(resolved["services"]["neo4j"])["NEO4J_AUTH"] == f"neo4j/{DUMMY['NEO4J_PASSWORD']}"
    jupyter = _environment(resolved["services"]["jupyter"])
    assert jupyter["NEO4J_PASSWORD"] == DUMMY["NEO4J_PASSWORD"]
    assert jupyter["JUPYTER_TOKEN"] == DUMMY["JUPYTER_TOKEN"]
    assert jupyter["NEO4J_URI"] == "bolt://neo4j:7687"
    assert jupyter["NEO4J_USER"] == "neo4j"


@pytest.mark.parametrize("missing", sorted(REQUIRED_VARS))
def test_secrets_are_required(raw, missing):
    env = {k: v for k, v in DUMMY.items() if k != missing}
    with pytest.raises(MissingVariable, match=missing):
        _resolve(raw, env)
    with pytest.raises(MissingVariable, match=missing):  # empty counts as missing (":?")
        _resolve(raw, {**env, missing: ""})


def test_no_literal_secret_anywhere(raw):
    text = COMPOSE.read_text()
    assert not re.search(r"neo4j/(?!\$\{NEO4J_PASSWORD:\?)", text), "a literal neo4j/<password>"
    for m in re.finditer(r"(?i)(?<![\w{$])\w*(password|token|secret)\w*\s*[:=]\s*(\S+)", text):
        value = m.group(2).strip("\"'")
        assert value.startswith("${") or value == "...", f"literal secret? {m.group(0)!r}"
    for name, service in raw["services"].items():
        for key, value in _environment(service).items():
            if re.search(r"PASSWORD|TOKEN|SECRET|AUTH", key):
                literal = re.sub(r"\$\{[A-Za-z_][A-Za-z0-9_]*:\?[^}]*\}", "", value)
                assert literal in ("", "neo4j/"), f"{name}.{key} holds a literal: {value!r}"
                # and never a default that would stand in for a missing secret
                assert not re.search(r"\$\{\w+:?[-+]", value), f"{name}.{key} has a default: {value!r}"


def test_every_interpolation_is_documented(raw):
    used = set()
    for text in _walk_strings(raw):
        for m in _INTERPOLATION.finditer(text):
            assert m.group("invalid") is None, f"invalid interpolation in {text!r} (write $$ for a literal $)"
            name = m.group("braced") or m.group("named")
            if name:
                used.add(name)
                if name in REQUIRED_VARS:
                    assert m.group("op") == ":?", f"{name} must be ${{{name}:?...}}, got {m.group(0)!r}"
    assert REQUIRED_VARS <= used
    assert used <= DOCUMENTED_VARS, f"undocumented variables: {sorted(used - DOCUMENTED_VARS)}"
    header = _header()
    for name in used:
        assert name in header, f"{name} is used but not explained in the header comment"


def test_header_explains_usage():
    header = _header()
    for needle in (
        "NEO4J_PASSWORD=",
        "JUPYTER_TOKEN=",
        "docker compose up -d",
        "lineage export neo4j --warehouse demo-out/warehouse --uri bolt://localhost:7687 --password-env NEO4J_PASSWORD",
        "http://localhost:7474",
        "cypher/",
    ):
        assert needle in header, f"header comment lacks {needle!r}"


def test_neo4j_data_volume(raw):
    declared = set(raw.get("volumes") or {})
    mounts = {target: source for source, target in _mounts(raw["services"]["neo4j"])}
    assert "/data" in mounts, "nothing mounted at /data: the graph is lost with the container"
    assert mounts["/data"] in declared, f"/data source {mounts['/data']!r} is not a declared named volume"


def test_neo4j_healthcheck_and_jupyter_waits_for_it(raw):
    health = raw["services"]["neo4j"].get("healthcheck") or {}
    assert not health.get("disable") and health.get("test"), "neo4j needs a healthcheck"
    test = health["test"]
    command = " ".join(test[1:]) if isinstance(test, list) else test
    assert test[0] != "NONE" and ("7474" in command or "cypher-shell" in command), f"healthcheck {test!r}"
    assert raw["services"]["jupyter"]["depends_on"]["neo4j"]["condition"] == "service_healthy"


def test_neo4j_memory_settings_use_neo4j5_names(raw):
    env = _environment(raw["services"]["neo4j"])
    memory = {k: v for k, v in env.items() if k.startswith("NEO4J_server_memory_")}
    assert {"NEO4J_server_memory_heap_max__size", "NEO4J_server_memory_pagecache_size"} <= set(memory)
    for key, value in memory.items():
        assert key in {
            "NEO4J_server_memory_heap_initial__size",
            "NEO4J_server_memory_heap_max__size",
            "NEO4J_server_memory_pagecache_size",
        }, f"unknown memory setting {key} (Neo4j 5 refuses to start on unknown settings)"
        assert re.fullmatch(r"\d+[kKmMgG]", value), f"{key}={value!r}"
    legacy = [k for k in env if re.match(r"NEO4J_dbms_(memory|connector)_", k)]
    assert not legacy, f"Neo4j 4.x setting names stop Neo4j 5 from starting: {legacy}"


def test_jupyter_mounts_notebooks_and_the_demo_warehouse(raw):
    from lineage.cli import demo

    mounts = _mounts(raw["services"]["jupyter"])
    sources = {PurePosixPath(source).as_posix(): target for source, target in mounts}
    assert "notebooks" in sources or "./notebooks" in sources, f"./notebooks not mounted: {mounts}"
    assert (ROOT / "notebooks").is_dir() and (ROOT / "notebooks" / "README.md").is_file()
    out_default = next(p.default for p in demo.params if p.name == "out")
    assert f"./{PurePosixPath(out_default)}" in sources or str(out_default) in sources, (
        f"`lineage demo` writes to {out_default}/ by default; mount it so notebooks see the warehouse"
    )


def test_jupyter_is_built_from_a_dockerfile_in_the_repo(raw):
    context, path = _build_paths(raw)
    assert context == ROOT, "the build context must be the repo root (it copies pyproject.toml and src/)"
    assert path.is_file(), f"jupyter build Dockerfile missing: {path}"


def test_jupyter_token_and_listen_address(raw, dockerfile):
    _, instructions = dockerfile
    command = raw["services"]["jupyter"].get("command")
    if command is None:
        cmds = [rest for keyword, rest in instructions if keyword == "CMD"]
        assert cmds, "no command for the jupyter service"
        command = cmds[-1]
    command = command if isinstance(command, str) else " ".join(command)
    assert "jupyter" in command and ("lab" in command or "notebook" in command), command
    assert "0.0.0.0" in command, "Jupyter must listen on 0.0.0.0 inside the container to be reachable"
    assert "8888" in command
    # the token must come from JUPYTER_TOKEN only: no token flag that would override or disable it
    assert not re.search(r"token|password", command, re.IGNORECASE), f"token/password on the command line: {command}"


def test_jupyter_dockerfile_installs_the_package_with_java(dockerfile):
    context, instructions = dockerfile
    base = next(rest for keyword, rest in instructions if keyword == "FROM")
    runs = " ; ".join(rest for keyword, rest in instructions if keyword == "RUN")
    copied = set()
    for keyword, rest in instructions:
        if keyword in ("COPY", "ADD"):
            args = [a for a in shlex.split(rest) if not a.startswith("--")]
            copied |= {PurePosixPath(a).as_posix().rstrip("/") for a in args[:-1]}
    assert "src" in copied and "pyproject.toml" in copied, f"COPY sources: {sorted(copied)}"
    readme = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"].get("readme")
    if readme:
        assert readme in copied, f"pyproject's readme {readme!r} is not copied: the package is built without its description"
    assert re.search(r"pip install\b[^;&|]*\s\.(\s|;|&|$)", runs), "the lineage package (.) is not pip-installed"
    assert "jupyterlab" in runs
    assert "openjdk-17" in runs or re.search(r"(jdk|jre|java)[^/]*17", base), "Spark needs Java 17"
    if "openjdk-17" in runs and base.startswith("python:"):
        assert "bookworm" in base, f"{base}: only Debian bookworm ships openjdk-17; pin python:3.11-slim-bookworm"
    for source in copied:
        assert (context / source).exists(), f"COPY source {source} missing from the build context"


def _dockerignored(path: str, patterns: list[str]) -> bool:
    """Docker's rule: the last matching pattern wins; a pattern matching a parent covers the path."""
    parts = PurePosixPath(path).parts
    candidates = ["/".join(parts[: i + 1]) for i in range(len(parts))]
    ignored = False
    for pattern in patterns:
        negate = pattern.startswith("!")
        pattern = pattern.lstrip("!").strip().lstrip("/").removeprefix("./").rstrip("/")
        regex = fnmatch.translate(pattern).replace(".*/", "(.*/)?") if "**/" in pattern else fnmatch.translate(pattern)
        if any(re.match(regex, c) for c in candidates):
            ignored = not negate
    return ignored


def test_dockerignore_keeps_the_build_context_small(dockerfile):
    context, instructions = dockerfile
    lines = (context / ".dockerignore").read_text().splitlines()
    patterns = [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]
    for heavy in (".venv", ".git", "demo-out", ".pytest_cache", "src/lineage/__pycache__"):
        assert _dockerignored(heavy, patterns), f"{heavy} would be sent to the Docker build"
    for keyword, rest in instructions:
        if keyword in ("COPY", "ADD"):
            args = [a for a in shlex.split(rest) if not a.startswith("--")]
            for source in args[:-1]:
                assert not _dockerignored(source, patterns), f".dockerignore excludes {source}, which the Dockerfile copies"
    assert not _dockerignored("src/lineage/cli/__init__.py", patterns)


def _compose_command() -> tuple[list[str] | None, str]:
    """A working `docker compose` (or standalone docker-compose v2), else why not."""
    reasons = []
    for command in (["docker", "compose"], ["docker-compose"]):
        if not shutil.which(command[0]):
            reasons.append(f"{command[0]} not on PATH")
            continue
        try:
            probe = subprocess.run([*command, "version"], capture_output=True, text=True, timeout=20, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            reasons.append(f"`{' '.join(command)} version` failed: {exc}")
            continue
        if probe.returncode == 0:
            return command, ""
        detail = (probe.stderr or probe.stdout).strip().splitlines()
        reasons.append(f"`{' '.join(command)} version` exited {probe.returncode}: {detail[0] if detail else ''}")
    return None, "; ".join(reasons)


def test_docker_compose_config_accepts_the_file(tmp_path):
    command, why = _compose_command()
    if command is None:
        pytest.skip(f"docker compose is not available to validate the file ({why})")
    env_file = tmp_path / "empty.env"  # keep a user's .env out of it
    env_file.write_text("")
    base = [*command, "--project-directory", str(ROOT), "--env-file", str(env_file), "-f", str(COMPOSE), "config", "-q"]
    env = {k: v for k, v in os.environ.items() if k not in DOCUMENTED_VARS}
    ok = subprocess.run(base, env={**env, **DUMMY}, capture_output=True, text=True, timeout=60, check=False)
    assert ok.returncode == 0, ok.stderr
    missing = subprocess.run(base, env={**env, "JUPYTER_TOKEN": DUMMY["JUPYTER_TOKEN"]},
                             capture_output=True, text=True, timeout=60, check=False)
    assert missing.returncode != 0 and "NEO4J_PASSWORD" in missing.stderr, missing.stderr
