"""A header value holding a line break or NUL is never sent: the attempt is a ``harness`` error
naming the header, not its value, and the provider sees no request."""

from __future__ import annotations

import pytest
from chat_exchange import chat_exchange
from robust_server import Answer, HostileServer

from fcbench.contract import ProviderErrorOutcome


@pytest.mark.parametrize("key", ["sk-pasted\n", "sk-pasted\r\n", "sk-\0pasted"])
def test_a_key_with_a_line_break_is_not_sent(key: str) -> None:
    with HostileServer(lambda request: Answer(200, {"choices": []})) as server:
        exchange = chat_exchange(server.url + "/v1", key)
    outcome = exchange.turn.outcome
    assert isinstance(outcome, ProviderErrorOutcome) and outcome.code == "harness", outcome
    assert "'Authorization'" in outcome.message and "sk-" not in outcome.message
    assert server.requests == []
