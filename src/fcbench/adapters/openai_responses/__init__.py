"""The ``openai-responses`` dialect: the OpenAI Responses API (``POST /responses``).

``tool_choice`` as this dialect defines it:

========  ==========================================  ==================================================
canonical wire value                                   meaning on the wire
========  ==========================================  ==================================================
auto      ``"auto"``                                   the model decides: text, one call or several
required  ``"required"``                               at least one call, any offered tool
none      ``"none"``                                   no call; the tools stay in the prompt
named     ``{"type": "function", "name": N}``          exactly that function is called
========  ==========================================  ==================================================

There is no finish reason: a call turn is ``status: "completed"`` with ``function_call`` output
items. ``parallel_tool_calls`` is sent only when the options set it. Tools always carry an explicit
``strict`` flag, because this API defaults to strict (and silently rewrites the schema) when the
flag is absent; strict mode applies the OpenAI strict schema rules (:mod:`.schema`, which reuses
:mod:`fcbench.adapters.openai_chat.schema`), every change recorded in ``BuiltRequest.schema_changes``.

Modules: ``request`` (build), ``response`` (response objects), ``stream`` (SSE assembly). Error
bodies, auth and retry hints are shared with ``openai-chat`` (:mod:`fcbench.adapters.openai_chat.errors`).
"""

from __future__ import annotations

from fcbench.adapters.base import Capabilities, PackageAdapter, tool_choices
from fcbench.adapters.openai_chat import errors as chat_errors


class OpenAIResponses(PackageAdapter):
    """Adapter for the OpenAI Responses API and compatible servers (stateless, pure)."""

    dialect = "openai-responses"
    capabilities = Capabilities(
        tool_choice=tool_choices(), parallel_control=True, strict_mode=True, stateful_continuation=True
    )
    errors = chat_errors
    """Error bodies, auth and retry hints are those of Chat Completions."""


__all__ = ["OpenAIResponses"]
