"""The ``gemini-interactions`` dialect: Google's Gemini Interactions API (``POST /interactions``).

Pure translation, no I/O: :mod:`.request` builds requests, :mod:`.response` reads
``Interaction`` bodies, :mod:`.stream` assembles SSE streams, :mod:`.schema` holds the tool-schema
rules, :mod:`.errors` reads error bodies with the ``gemini`` dialect's mapping (auth
``x-goog-api-key`` and retry hints shared with it). The base URL ends in the API version
(e.g. ``https://generativelanguage.googleapis.com/v1beta``).

Tool choice as sent (``generation_config.tool_choice``, protocols.md §4.6):

==============  ======================================================  ============================
canonical       wire                                                    meaning on this wire
==============  ======================================================  ============================
``auto``        ``"auto"`` (``"validated"`` when strict)                text or calls (``validated``:
                                                                        calls constrained to schema)
``required``    ``"any"``                                               must call some function
``tool:NAME``   ``{"allowed_tools": {"mode": "any", "tools": [NAME]}}``  must call that function
``none``        ``"none"``                                              no function call
==============  ======================================================  ============================

There is no parallel-call switch: ``parallel_tool_calls=False`` is not sent and a note says so.
Without tools neither ``tools`` nor ``tool_choice`` is sent.

Stateful continuation (:attr:`~fcbench.adapters.base.Capabilities.stateful_continuation`): with
``RequestOptions.previous_response_id`` (an interaction id, ``ParsedTurn.response_id``) the request
sends ``previous_interaction_id`` and only the messages after the last assistant turn; otherwise
the whole conversation is replayed, assistant turns from their raw steps (signatures included).
See :mod:`.request` for when ``store`` is sent.
"""

from __future__ import annotations

from fcbench.adapters.base import Capabilities, PackageAdapter, tool_choices

AUTO = "exact (validated instead of auto when strict)"
"""How ``auto`` is sent: ``validated`` constrains calls when strict."""


class GeminiInteractions(PackageAdapter):
    """Adapter for the Gemini Interactions API (stateless itself; one instance serves every request)."""

    dialect = "gemini-interactions"
    capabilities = Capabilities(
        tool_choice=tool_choices(auto=AUTO),
        parallel_control=False,
        strict_mode=True,
        stateful_continuation=True,
    )
    unread_logs = (
        "its logs are interactions chained by previous_interaction_id, and a "
        "logged request alone does not hold the conversation it continues"
    )


__all__ = ["GeminiInteractions"]
