"""The ``bedrock-converse`` dialect: Amazon Bedrock Runtime's Converse API.

``POST /model/{modelId}/converse`` and ``/model/{modelId}/converse-stream``. Pure translation,
no I/O: :mod:`.request` builds requests, :mod:`.response` reads JSON bodies, :mod:`.stream`
assembles streams, :mod:`.errors` maps error responses. The base URL is the regional runtime
host (e.g. ``https://bedrock-runtime.us-east-1.amazonaws.com``); the key is a Bedrock API key,
sent as ``Authorization: Bearer`` (no SigV4 signing). Streams are AWS event-stream binary frames,
not SSE (:attr:`Capabilities.stream_framing` ``aws-eventstream``).

Tool choice as sent (``toolConfig.toolChoice``):

==============  ==================================  ==========================================
canonical       wire ``toolChoice``                 meaning on this wire
==============  ==================================  ==========================================
``auto``        ``{"auto": {}}``                    the model decides
``required``    ``{"any": {}}``                     must use some tool
``tool:NAME``   ``{"tool": {"name": NAME}}``        must use that tool
``none``        no ``toolConfig`` at all             approximated: the model sees no tools;
                (``toolConfig`` without             when the history holds toolUse/toolResult
                ``toolChoice`` when the history     blocks, which need ``toolConfig``, the tools
                holds tool blocks)                  are sent with the default (auto) choice
==============  ==================================  ==========================================

Converse has no ``none`` choice, so ``none`` is approximated as above and a note in
:attr:`~fcbench.adapters.base.BuiltRequest.notes` says which way. There is no parallel-call
switch and no strict flag: ``parallel_tool_calls=False`` and ``strict=True`` are not sent, and a
note says so. ``temperature`` and ``max_tokens`` go in ``inferenceConfig``; a target's ``params``
(merged into the body) reach the rest, e.g. ``{"inferenceConfig": {"topP": 0.9, "stopSequences":
["###"]}, "additionalModelRequestFields": {"top_k": 50}}``.

Assistant turns keep ``provider_state = {"bedrock-converse": {"content": [...]}}``: the
response's ``output.message.content`` blocks, replayed unchanged when the turn goes back into a
request.
"""

from __future__ import annotations

from fcbench.adapters.base import Capabilities, PackageAdapter, tool_choices

NONE_SENT = "approximated: tools not sent (sent with auto when the history holds tool blocks)"
"""How ``none`` is sent: Converse has no such choice."""


class BedrockConverse(PackageAdapter):
    """Adapter for the Bedrock Converse API (stateless; one instance serves every request)."""

    dialect = "bedrock-converse"
    capabilities = Capabilities(
        tool_choice=tool_choices(none=NONE_SENT),
        parallel_control=False,
        strict_mode=False,
        stream_framing="aws-eventstream",
    )


__all__ = ["BedrockConverse"]
