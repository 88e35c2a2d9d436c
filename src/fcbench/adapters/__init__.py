"""Registry of wire-dialect adapters.

Built-in dialects are listed in :data:`BUILTIN_ADAPTERS`; third-party packages add more through
the ``fcbench.adapters`` entry-point group (name = dialect, value = ``module:Class``). Whatever
the rest of fcbench needs of a dialect it asks here: the adapter (:func:`get`), a logged request
read back (:func:`read_request`), the dialects' tool-list formats (:func:`tool_list_formats`).
"""

from __future__ import annotations

import importlib
import json
from functools import cache
from importlib.metadata import entry_points
from typing import Any

from fcbench.adapters.base import Adapter
from fcbench.adapters.logged import LoggedRequest, RequestFormatError, RequestReader
from fcbench.adapters.tool_lists import ToolListFormat
from fcbench.errors import TargetError

BUILTIN_ADAPTERS: dict[str, str] = {
    "anthropic-messages": "fcbench.adapters.anthropic_messages:AnthropicMessages",
    "bedrock-converse": "fcbench.adapters.bedrock_converse:BedrockConverse",
    "gemini": "fcbench.adapters.gemini:Gemini",
    "gemini-interactions": "fcbench.adapters.gemini_interactions:GeminiInteractions",
    "openai-chat": "fcbench.adapters.openai_chat:OpenAIChat",
    "openai-responses": "fcbench.adapters.openai_responses:OpenAIResponses",
}


def registry() -> dict[str, str]:
    """Dialect name -> ``module:Class`` for built-in and entry-point adapters."""
    found = dict(BUILTIN_ADAPTERS)
    for ep in entry_points(group="fcbench.adapters"):
        found.setdefault(ep.name, ep.value)
    return found


def dialects() -> list[str]:
    """Names of every known dialect, sorted."""
    return sorted(registry())


@cache
def get(dialect: str) -> Adapter:
    """Return the adapter instance for ``dialect`` (adapters are stateless, so one instance serves all)."""
    spec = registry().get(dialect)
    if spec is None:
        raise TargetError(f"unknown dialect {dialect!r}; known: {', '.join(dialects())}")
    module_name, _, class_name = spec.partition(":")
    adapter: Adapter = getattr(importlib.import_module(module_name), class_name)()
    return adapter


def request_readers() -> dict[str, RequestReader]:
    """Dialect -> its reader of logged requests, for every dialect that has one."""
    found = {dialect: getattr(get(dialect), "read_request", None) for dialect in dialects()}
    return {dialect: reader for dialect, reader in found.items() if reader is not None}


def read_request(dialect: str, body: Any) -> LoggedRequest:
    """Read one logged request body of ``dialect`` (a JSON string is decoded first) into canonical form.

    Raises :class:`~fcbench.adapters.logged.RequestFormatError` when the dialect has no reader
    (saying why, when its adapter does) or the body is not one its reader can read.
    """
    try:  # the adapter is cached: a log of thousands of lines does not list the entry points per line
        reader = getattr(get(dialect), "read_request", None)
    except TargetError:
        reader = None
    if reader is None:
        readers = request_readers()
        why = getattr(get(dialect), "unread_logs", None) if dialect in registry() else None
        said = f" ({why})" if why else ""
        raise RequestFormatError(
            f"no request reader for dialect {dialect!r}{said}; known: {', '.join(readers)}"
        )
    if isinstance(body, str):
        try:
            body = json.loads(body)
        except ValueError as exc:
            raise RequestFormatError(f"the request is a string that is not JSON: {exc}") from None
    return reader(body)


def tool_list_formats() -> list[ToolListFormat]:
    """The tool-list formats the dialects declare, in dialect order (each adapter's ``tool_list_format``)."""
    found = (getattr(get(dialect), "tool_list_format", None) for dialect in dialects())
    return [fmt for fmt in found if fmt is not None]


__all__ = [
    "BUILTIN_ADAPTERS",
    "dialects",
    "get",
    "read_request",
    "registry",
    "request_readers",
    "tool_list_formats",
]
