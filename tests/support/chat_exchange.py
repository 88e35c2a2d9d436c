"""One OpenAI Chat request sent by a fresh :class:`~fcbench.transport.Transport` (no retries)."""

from __future__ import annotations

import asyncio

from fcbench import adapters
from fcbench.adapters.base import BuiltRequest
from fcbench.endpoints import Endpoint
from fcbench.redact import Redactor
from fcbench.transport import Exchange, RetryPolicy, Transport


def chat_exchange(
    base_url: str, api_key: str, timeout_s: float = 10.0, redactor: Redactor | None = None
) -> Exchange:
    """The exchange of one empty Chat Completions request to ``base_url`` (the transport closed)."""

    async def go() -> Exchange:
        transport = Transport(retry=RetryPolicy(max_retries=0), timeout_s=timeout_s, redactor=redactor)
        endpoint = Endpoint(name="lab", dialect="openai-chat", base_url=base_url)
        built = BuiltRequest(path="/chat/completions", body={"model": "m", "messages": []})
        try:
            return await transport.exchange(
                endpoint, adapters.get("openai-chat"), built, api_key=api_key, offered_tools=[]
            )
        finally:
            await transport.aclose()

    return asyncio.run(go())
