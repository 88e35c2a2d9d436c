"""The ``anthropic-messages`` dialect: Anthropic's Messages API (``POST /v1/messages``).

Pure translation, no I/O: :mod:`.request` builds requests, :mod:`.response` reads JSON bodies,
:mod:`.stream` assembles SSE streams, :mod:`.errors` maps error bodies. The base URL is given
without ``/v1`` (e.g. ``https://api.anthropic.com``).

Tool choice as sent (protocols.md §3.1):

==============  ===============================================  ===================================
canonical       wire ``tool_choice``                              meaning on this wire
==============  ===============================================  ===================================
``auto``        ``{"type": "auto"}``                             the model decides
``required``    ``{"type": "any"}``                              must use some tool; no text first
``tool:NAME``   ``{"type": "tool", "name": NAME}``               must use that tool; no text first
``none``        ``{"type": "none"}``                             no tool use (tools stay declared)
==============  ===============================================  ===================================

``parallel_tool_calls=False`` adds ``"disable_parallel_tool_use": true`` to ``auto`` (at most one
call), ``any`` and ``tool`` (exactly one call); ``none`` needs no switch. ``strict=True`` adds
``"strict": true`` to each tool and applies the strict schema rules (:mod:`.schema`). Without
tools neither ``tools`` nor ``tool_choice`` is sent.

Assistant turns keep ``provider_state = {"anthropic-messages": {"content": [...]}}``: the
response's ``content`` blocks, replayed unchanged when the turn goes back into a request.
"""

from __future__ import annotations

from fcbench.adapters.base import Capabilities, PackageAdapter, tool_choices


class AnthropicMessages(PackageAdapter):
    """Adapter for the Anthropic Messages API (stateless; one instance serves every request)."""

    dialect = "anthropic-messages"
    capabilities = Capabilities(tool_choice=tool_choices(), parallel_control=True, strict_mode=True)


__all__ = ["AnthropicMessages"]
