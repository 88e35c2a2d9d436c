"""Token-count endpoints: Anthropic ``POST /v1/messages/count_tokens`` and Gemini ``:countTokens``.

A count request goes through the same pipeline as a model request (auth, headers, unknown fields,
decoding and schema acceptance, model lookup) and is answered with the input-token estimate the
mock reports as usage for the same input (:func:`fcbench.mock.common.request_tokens`), so
``count_tokens`` and a reply's ``usage.input_tokens`` / ``promptTokenCount`` always agree.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any


def _anthropic_body(body: Any) -> Any:
    """A count body as a Messages body: ``max_tokens`` is not part of a count request."""
    if isinstance(body, dict) and "max_tokens" not in body:
        return {**body, "max_tokens": 1}
    return body


def _gemini_body(body: Any) -> Any:
    """``{"contents"}`` or ``{"generateContentRequest"}`` as a ``GenerateContentRequest``."""
    if not isinstance(body, dict):
        return body
    nested = body.get("generateContentRequest", body.get("generate_content_request"))
    if isinstance(nested, dict):
        return nested
    return {"contents": body.get("contents")}


COUNT_BODIES: Mapping[str, Callable[[Any], Any]] = {
    "anthropic-messages": _anthropic_body,
    "gemini": _gemini_body,
}
"""Dialect -> turns its count body into the body its model route decodes."""

COUNT_RENDER: Mapping[str, Callable[[int], dict[str, Any]]] = {
    "anthropic-messages": lambda tokens: {"input_tokens": tokens},
    "gemini": lambda tokens: {
        "totalTokens": tokens,
        "promptTokensDetails": [{"modality": "TEXT", "tokenCount": tokens}],
    },
}
"""Dialect -> the count response body for a number of input tokens."""
