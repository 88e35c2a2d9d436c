"""The ``openai-chat`` dialect: OpenAI Chat Completions (``POST /chat/completions``).

Also spoken by vLLM, Ollama, llama.cpp, LM Studio, Azure OpenAI and OpenRouter, each with its own
deviations (protocols.md §5); the adapter records those as anomalies instead of smoothing them.

``tool_choice`` as this dialect defines it:

========  ==============================================  ===============================================
canonical wire value                                       meaning on the wire
========  ==============================================  ===============================================
auto      ``"auto"``                                       the model decides: text, one call or several
required  ``"required"``                                   at least one call, any offered tool
none      ``"none"``                                       no call; the tools stay in the prompt
named     ``{"type": "function",                           exactly that function is called; OpenAI then
          "function": {"name": N}}``                       answers ``finish_reason: "stop"``, not
                                                           ``"tool_calls"`` (so ``stop`` with calls is not
                                                           an anomaly)
========  ==============================================  ===============================================

``parallel_tool_calls`` is sent only when the options set it (``false`` = at most one call).
Strict mode sets ``"strict": true`` per function and applies the OpenAI strict schema rules
(:mod:`.schema`), every change recorded in ``BuiltRequest.schema_changes``.

Modules: ``request`` (build), ``response`` (JSON responses), ``stream`` (SSE assembly), ``errors``
(error bodies, auth and retry hints, shared with ``openai-responses``).
"""

from __future__ import annotations

from fcbench.adapters.base import Capabilities, PackageAdapter, tool_choices

NAMED = "exact; finish_reason is 'stop' rather than 'tool_calls'"
"""How a named tool choice comes back."""


class OpenAIChat(PackageAdapter):
    """Adapter for OpenAI Chat Completions and compatible servers (stateless, pure)."""

    dialect = "openai-chat"
    capabilities = Capabilities(
        tool_choice=tool_choices(named=NAMED), parallel_control=True, strict_mode=True
    )


__all__ = ["OpenAIChat"]
