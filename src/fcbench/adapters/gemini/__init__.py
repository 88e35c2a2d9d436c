"""The ``gemini`` dialect: Google's Gemini API ``generateContent`` / ``streamGenerateContent``.

Pure translation, no I/O: :mod:`.request` builds requests, :mod:`.response` reads JSON bodies,
:mod:`.stream` assembles SSE streams, :mod:`.errors` maps error bodies. The base URL ends in the
API version (e.g. ``https://generativelanguage.googleapis.com/v1beta``).

Tool choice as sent (``toolConfig.functionCallingConfig``, protocols.md §4.1):

==============  ==================================================  ==============================
canonical       wire                                                meaning on this wire
==============  ==================================================  ==============================
``auto``        ``{"mode": "AUTO"}`` (``VALIDATED`` when strict)    text or calls (``VALIDATED``:
                                                                    calls constrained to schema)
``required``    ``{"mode": "ANY"}``                                 must call some function
``tool:NAME``   ``{"mode": "ANY", "allowedFunctionNames": [NAME]}`` must call that function
``none``        ``{"mode": "NONE"}``                                as if no functions were declared
==============  ==================================================  ==============================

There is no parallel-call switch: ``parallel_tool_calls=False`` is not sent and a note says so.
Without tools neither ``tools`` nor ``toolConfig`` is sent. Calls may lack ids: see
:data:`fcbench.adapters.gemini.request.CALL_KEY_PREFIX` for how results are tied to them.
"""

from __future__ import annotations

from fcbench.adapters.base import Capabilities, PackageAdapter, tool_choices

AUTO = "exact (VALIDATED instead of AUTO when strict)"
"""How ``auto`` is sent: ``VALIDATED`` constrains calls when strict."""


class Gemini(PackageAdapter):
    """Adapter for the Gemini API (stateless; one instance serves every request)."""

    dialect = "gemini"
    capabilities = Capabilities(tool_choice=tool_choices(auto=AUTO), parallel_control=False, strict_mode=True)


__all__ = ["Gemini"]
