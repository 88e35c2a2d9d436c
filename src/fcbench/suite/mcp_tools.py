"""Tool sets read live from an MCP server: start it over stdio, call ``tools/list``, convert.

``fcbench run --tools-from-mcp "python server.py --flag"`` (config key ``tools_from_mcp``) starts
the command, initialises an MCP session with the official ``mcp`` SDK (the ``mcp`` extra; imported
only when a source is given), lists every tool (following ``nextCursor``), converts the listing as
the ``mcp`` format of :mod:`fcbench.suite.imports` and offers it as tool set ``core``; write
``SET=COMMAND ARGS`` for another set. The import record names ``mcp:<command>``, the server's name
and version from ``initialize``, and the SHA-256 of the listing (the ``tools`` array as canonical
JSON), which is also part of the dataset hash.
"""

from __future__ import annotations

import re
import shlex
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TextIO

from fcbench.contract import Tool
from fcbench.errors import CaseError
from fcbench.redact import sanitize
from fcbench.suite.checks import ToolContext
from fcbench.suite.imports import ToolImport, json_sha256, read_tool_list

SET_PREFIX = re.compile(r"^([a-z0-9][a-z0-9_-]*)=(?=\S)")
"""``SET=`` in front of a command: the tool set the server's tools become."""
TIMEOUT_S = 30.0
"""How long a server may take to start, initialise and list its tools."""
MAX_PAGES = 100
"""Most ``tools/list`` pages followed (a server that always sends a cursor is stopped there)."""


@dataclass(frozen=True)
class SourcedTools:
    """A tool set taken from outside the suite's files (an MCP server's ``tools/list``)."""

    tool_set: str
    """The tool set it supplies (replacing the suite's own set of that name, if any)."""
    tools: list[Tool]
    """The converted tools."""
    record: ToolImport
    """Where they came from (source, format, hash, server)."""


def parse_source(source: str) -> tuple[str, list[str]]:
    """``"[SET=]COMMAND ARGS"`` -> (tool set, argv)."""
    match = SET_PREFIX.match(source.strip())
    tool_set = match.group(1) if match else "core"
    argv = shlex.split(source.strip()[match.end() if match else 0 :])
    if not argv:
        raise CaseError("no MCP server command given", path=f"mcp:{source}")
    return tool_set, argv


async def _listing(argv: list[str], errlog: TextIO) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    import anyio
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=argv[0], args=argv[1:])
    tools: list[dict[str, Any]] = []
    with anyio.fail_after(TIMEOUT_S):
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            init = await session.initialize()
            server = {"name": init.server_info.name, "version": init.server_info.version}
            cursor: str | None = None
            for _ in range(MAX_PAGES):
                from mcp.types import PaginatedRequestParams

                page = await session.list_tools(
                    params=PaginatedRequestParams(cursor=cursor) if cursor else None
                )
                tools += [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in page.tools]
                cursor = page.next_cursor
                if not cursor:
                    break
    return server, tools


def fetch_tool_set(source: str) -> SourcedTools:
    """Start the MCP server of ``source`` (``[SET=]COMMAND ARGS``), list and convert its tools."""
    tool_set, argv = parse_source(source)
    command = shlex.join(argv)
    where = f"mcp:{command}"
    try:
        import anyio
    except ImportError:  # pragma: no cover - anyio comes with httpx
        raise CaseError("reading tools from an MCP server needs anyio", path=where) from None
    try:
        import mcp  # noqa: F401
    except ImportError:
        raise CaseError(
            "reading tools from an MCP server needs the MCP SDK: pip install 'fcbench[mcp]'", path=where
        ) from None
    with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as errlog:
        try:
            server, tools = anyio.run(_listing, argv, errlog)
        except Exception as exc:  # the server failed to start, crashed, timed out or spoke badly
            errlog.seek(0)
            tail = sanitize(errlog.read()[-800:]).strip()  # the server's bytes, never a terminal's codes
            reason = _reason(exc)
            raise CaseError(
                f"could not list the server's tools: {reason}"
                + (f"; its stderr ends: {tail}" if tail else ""),
                path=where,
            ) from None
    listing = {"tools": tools}
    converted, findings, record = read_tool_list(listing, original="", source=where, tool_set=tool_set)
    if converted is None:
        problems = "; ".join(str(f) for f in findings[:20])
        raise CaseError(f"the server's tools cannot be used: {problems}", path=where)
    digest = json_sha256(listing)
    base = record or ToolImport(
        source=where, tool_set=tool_set, format="mcp", sha256=digest, tools=len(converted)
    )
    final = base.model_copy(
        update={"sha256": digest, "server_name": server["name"], "server_version": server["version"]}
    )
    return SourcedTools(tool_set=tool_set, tools=converted, record=final)


def _reason(exc: BaseException) -> str:
    """The innermost message of an exception (task groups wrap the real one)."""
    inner = getattr(exc, "exceptions", None)
    if inner:
        return _reason(inner[0])
    if isinstance(exc, TimeoutError):
        return f"no answer within {TIMEOUT_S:.0f} s"
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


def fetch_sources(tool_sources: Sequence[str]) -> list[SourcedTools]:
    """Every source's tool set, in order; a tool set named twice is an error."""
    fetched: list[SourcedTools] = []
    for source in tool_sources:
        sourced = fetch_tool_set(source)
        if any(other.tool_set == sourced.tool_set for other in fetched):
            raise CaseError(
                f"tool set {sourced.tool_set!r} is given by two MCP servers", path=sourced.record.source
            )
        fetched.append(sourced)
    return fetched


def with_sources(context: ToolContext, sourced: Sequence[SourcedTools]) -> ToolContext:
    """``context`` with the sourced tool sets added (each replacing the suite's set of its name)."""
    sets = {**context.tool_sets, **{s.tool_set: s.tools for s in sourced}}
    return ToolContext(sets, context.broken_sets - {s.tool_set for s in sourced})


def hash_sources(texts: dict[str, str], sourced: Sequence[SourcedTools]) -> None:
    """Put each sourced listing's hash into the texts the dataset hash covers (as ``mcp:<set>``)."""
    for s in sourced:
        texts[f"mcp:{s.tool_set}"] = s.record.sha256


__all__ = ["SourcedTools", "fetch_sources", "fetch_tool_set", "hash_sources", "parse_source", "with_sources"]
