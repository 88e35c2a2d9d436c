"""The transport's retry policy: which errors are retried, how long it waits, and the run-wide budget.

``RETRYABLE_CODES`` and :class:`RetryBudget` are checked directly. The wait before each retry (the
provider's ``retry-after`` / ``retry-after-ms`` hint, else a doubling backoff, capped at
``max_wait_s``) exists only inside ``Transport.exchange``, so it is checked over real HTTP against
the mock provider (faults by ``X-Fcbench-Fault`` header or by a server-wide spec) or a tiny local
server for headers the mock never sends. The waits are recorded instead of slept: the ``asyncio``
that ``fcbench.transport`` sees is replaced by one whose ``sleep`` only notes the delay.
"""

from __future__ import annotations

import asyncio
import json
import typing
from collections.abc import Callable
from typing import Any

import pytest
from robust_server import Answer, HostileServer, SeenRequest

import fcbench.transport.client as transport_module
from fcbench import adapters
from fcbench.adapters.base import RequestOptions, ToolChoice
from fcbench.contract import ProviderErrorCode, ProviderErrorOutcome, UserMessage
from fcbench.endpoints import Endpoint
from fcbench.mock.faults import FAULT_HEADER
from fcbench.mock.scripted import REPLY_HEADER
from fcbench.mock.server import MockServer, base_urls
from fcbench.transport import RETRYABLE_CODES, Exchange, RetryBudget, RetryPolicy, Transport

TEXT_REPLY = json.dumps({"kind": "text", "text": "Hello there."})
NOT_RETRYABLE = {
    "schema_rejected",
    "auth",
    "not_found",
    "bad_request",
    "harness",
    "too_large",
    "model_output_invalid",
}


class _RecordedSleep:
    """Stands in for ``asyncio`` inside ``fcbench.transport``: ``sleep`` records its delay and returns."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(asyncio, name)

    async def sleep(self, delay: float) -> None:
        self.waits.append(delay)


@pytest.fixture
def waits(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The delays the transport waited before each retry, in order (nothing really sleeps)."""
    recorder = _RecordedSleep()
    monkeypatch.setattr(transport_module, "asyncio", recorder)
    return recorder.waits


def _send(
    base_url: str,
    policy: RetryPolicy,
    *,
    dialect: str = "openai-chat",
    fault: str | None = None,
    model: str = "sim-scripted",
    requests: int = 1,
    timeout_s: float = 20.0,
) -> tuple[list[Exchange], int]:
    """Send ``requests`` identical requests through one transport; the exchanges and retries spent."""
    endpoint = Endpoint(name=f"retry-{dialect}", dialect=dialect, base_url=base_url, key_required=False)
    adapter = adapters.get(dialect)
    built = adapter.build_request(
        None, [UserMessage(content="Hello!")], [], ToolChoice(), RequestOptions(model=model)
    )
    headers = {REPLY_HEADER: TEXT_REPLY}
    if fault is not None:
        headers[FAULT_HEADER] = fault

    async def go() -> tuple[list[Exchange], int]:
        transport = Transport(timeout_s=timeout_s, retry=policy)
        try:
            done = [
                await transport.exchange(
                    endpoint, adapter, built, api_key="retry-key", offered_tools=[], headers=headers
                )
                for _ in range(requests)
            ]
            return done, transport.retries_spent
        finally:
            await transport.aclose()

    return asyncio.run(go())


def _code(exchange: Exchange) -> str | None:
    outcome = exchange.turn.outcome
    return outcome.code if isinstance(outcome, ProviderErrorOutcome) else None


def _attempt_codes(exchange: Exchange) -> list[str | None]:
    return [attempt["code"] for attempt in exchange.raw.get("attempts", [])]


# -- the policy's parts, directly --------------------------------------------------------------------


@pytest.mark.parametrize("code", sorted(typing.get_args(ProviderErrorCode)))
def test_only_transient_provider_errors_are_retryable(code: str) -> None:
    assert (code in RETRYABLE_CODES) == (code not in NOT_RETRYABLE)


def test_retryable_codes_are_provider_error_codes() -> None:
    assert set(RETRYABLE_CODES) <= set(typing.get_args(ProviderErrorCode))
    assert {"rate_limited", "server", "overloaded", "timeout", "bad_response"} <= RETRYABLE_CODES


def test_the_budget_gives_out_exactly_its_total_then_refuses() -> None:
    budget = RetryBudget(3)
    assert [budget.take() for _ in range(5)] == [True, True, True, False, False]
    assert budget.spent == 3
    assert RetryBudget(0).take() is False


# -- the wait before a retry, over HTTP -----------------------------------------------------------------


@pytest.mark.parametrize("dialect", sorted(adapters.BUILTIN_ADAPTERS))
def test_the_providers_retry_hint_sets_the_wait(
    dialect: str, waits: list[float], mock_server_factory: Callable[..., MockServer]
) -> None:
    server = mock_server_factory(faults="rate_limit:1.0,retry_after=7")
    policy = RetryPolicy(max_retries=2, backoff_s=0.25, max_wait_s=20.0)
    (exchange,), spent = _send(base_urls(server.url)[dialect], policy, dialect=dialect)
    assert _code(exchange) == "rate_limited"
    assert exchange.attempts == 3 and spent == 2
    assert waits == [7.0, 7.0]  # the announced 7 s, not the 0.25 s / 0.5 s backoff
    assert _attempt_codes(exchange) == ["rate_limited"] * 3


def test_a_zero_retry_after_retries_at_once_instead_of_backing_off(
    mock_server: str, waits: list[float]
) -> None:
    policy = RetryPolicy(max_retries=1, backoff_s=5.0)
    (exchange,), _ = _send(f"{mock_server}/v1", policy, fault="rate_limit=0")
    assert exchange.attempts == 2
    assert waits == [0.0]


def test_a_long_retry_after_is_capped_at_max_wait(mock_server: str, waits: list[float]) -> None:
    policy = RetryPolicy(max_retries=2, backoff_s=0.25, max_wait_s=2.5)
    (exchange,), _ = _send(f"{mock_server}/v1", policy, fault="rate_limit=90")
    assert exchange.attempts == 3
    assert waits == [2.5, 2.5]


def test_retry_after_ms_wins_over_retry_after_and_a_later_success_ends_the_retries(
    waits: list[float],
) -> None:
    hints = [{"retry-after-ms": "1500", "retry-after": "9"}, {"retry-after-ms": "40"}]

    def handler(request: SeenRequest) -> Answer:
        if hints:
            return Answer(429, {"error": {"message": "slow down", "type": "rate_limit"}}, hints.pop(0))
        message = {"role": "assistant", "content": "Hello there."}
        choice = {"index": 0, "message": message, "finish_reason": "stop"}
        return Answer(200, {"id": "c1", "object": "chat.completion", "model": "m", "choices": [choice]})

    with HostileServer(handler) as server:
        (exchange,), spent = _send(f"{server.url}/v1", RetryPolicy(max_retries=5, backoff_s=3.0))
    assert waits == pytest.approx([1.5, 0.04])
    assert exchange.attempts == 3 and spent == 2
    assert exchange.turn.outcome.kind == "text"
    assert _attempt_codes(exchange) == ["rate_limited", "rate_limited", None]


def test_without_a_hint_the_backoff_doubles_up_to_max_wait(mock_server: str, waits: list[float]) -> None:
    policy = RetryPolicy(max_retries=5, backoff_s=0.5, max_wait_s=3.0)
    (exchange,), spent = _send(f"{mock_server}/v1", policy, fault="server_error")
    assert _code(exchange) == "server"
    assert exchange.attempts == 6 and spent == 5
    assert waits == [0.5, 1.0, 2.0, 3.0, 3.0]


# -- how many retries ---------------------------------------------------------------------------------


def test_the_run_wide_budget_is_spent_then_exhausted(
    waits: list[float], mock_server_factory: Callable[..., MockServer]
) -> None:
    server = mock_server_factory(faults="server_error:1.0")
    policy = RetryPolicy(max_retries=2, backoff_s=0.25, budget=3)
    exchanges, spent = _send(f"{server.url}/v1", policy, requests=3)
    # 2 retries for the first request, the last one left for the second, none for the third.
    assert [e.attempts for e in exchanges] == [3, 2, 1]
    assert spent == 3
    assert all(_code(e) == "server" for e in exchanges)
    assert waits == [0.25, 0.5, 0.25]
    assert "attempts" not in exchanges[2].raw  # a single attempt lists none


@pytest.mark.parametrize(
    ("fault", "timeout_s", "code"),
    [
        ("rate_limit=0", 20.0, "rate_limited"),
        ("server_error", 20.0, "server"),
        ("overload", 20.0, "overloaded"),
        ("malformed_json", 20.0, "bad_response"),
        ("timeout=3", 0.3, "timeout"),
    ],
)
def test_each_transient_error_is_retried(
    mock_server: str, waits: list[float], fault: str, timeout_s: float, code: str
) -> None:
    policy = RetryPolicy(max_retries=1, backoff_s=0.25)
    (exchange,), spent = _send(f"{mock_server}/v1", policy, fault=fault, timeout_s=timeout_s)
    assert _code(exchange) == code
    assert exchange.attempts == 2 and spent == 1 and len(waits) == 1
    assert _attempt_codes(exchange) == [code, code]


@pytest.mark.parametrize(
    ("fault", "model", "code"),
    [("auth_error", "sim-scripted", "auth"), (None, "no-such-model", "not_found")],
)
def test_a_permanent_error_is_not_retried(
    mock_server: str, waits: list[float], fault: str | None, model: str, code: str
) -> None:
    policy = RetryPolicy(max_retries=3, backoff_s=0.25)
    (exchange,), spent = _send(f"{mock_server}/v1", policy, fault=fault, model=model)
    assert _code(exchange) == code
    assert exchange.attempts == 1 and spent == 0
    assert waits == []


def test_max_retries_zero_sends_once(mock_server: str, waits: list[float]) -> None:
    (exchange,), spent = _send(f"{mock_server}/v1", RetryPolicy(max_retries=0), fault="server_error")
    assert _code(exchange) == "server"
    assert exchange.attempts == 1 and spent == 0 and waits == []
