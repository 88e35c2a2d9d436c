"""The transport: the only place that talks to providers.

One pooled ``httpx.AsyncClient`` per endpoint, a per-endpoint concurrency limit, a timeout,
retries with backoff that honour the provider's retry hint and are capped by a run-wide retry
budget, and raw capture of every exchange with secrets redacted. Failures become canonical
``provider_error`` outcomes (coverage loss), never exceptions.

One fault taxonomy for every dialect, streamed or not: the transport classifies what fails on the
connection, each adapter what its provider says (its ``errors`` module for error bodies and
in-stream error events, its ``stream`` module for a corrupted stream); the same fault gets the same
code in all of them. ``tests/adapters/test_fault_taxonomy.py`` injects every fault of the mock
(:mod:`fcbench.mock.faults`) into every dialect over HTTP and checks this table:

===================  ==================================================================  ================
mock fault           what reaches the client                                             code
===================  ==================================================================  ================
``rate_limit``       429 (with the dialect's retry hint)                                 ``rate_limited``
``server_error``     500                                                                 ``server``
``overload``         503, Anthropic 529, or a 5xx whose message says "overloaded"        ``overloaded``
``auth_error``       the dialect's bad-key answer (401, Gemini 400 ``API_KEY_INVALID``)  ``auth``
``timeout``          no answer within the client timeout, or a 504                       ``timeout``
``stream_cut``       the connection lost after the status line (body or stream cut)      ``bad_response``
``malformed_json``   a 2xx body, or one stream event, that is not a JSON object          ``bad_response``
``stream_error``     an error event in the stream (the mock sends an overload)           the event's code
``slow_first_byte``  a late but complete answer (within the timeout)                     none: scored
``split_args``       arguments streamed in 1-3 character fragments                       none: scored
``huge_body``        a 2xx body larger than ``max_response_bytes`` (not streamed)        ``too_large``
``gzip_bomb``        a small gzip body inflating past ``max_response_bytes``             ``too_large``
--                   connection refused or closed before any response                    ``server``
===================  ==================================================================  ================

None of these is ever a model outcome: a corrupted or cut wire is the provider's or the network's
fault, so it is coverage loss (``not_scored``), never unparseable arguments or a text answer.

Streams come in two framings, chosen by the adapter's ``Capabilities.stream_framing``
(:data:`STREAM_FRAMINGS`): server-sent events, and AWS event-stream binary frames (Bedrock). Each
framing only turns the body into ``(event name, data)`` pairs; limits, raw capture (``events``),
stalls and cuts are handled once for both. A frame that fails its checksum or that the stream ends
inside of is ``bad_response``, like a cut connection.

Limits (:class:`Limits`) hold against a hostile or broken provider: ``timeout_s`` bounds every
read and the whole request (a server that drips one byte at a time or streams forever is cut at
the deadline: ``timeout``, ``raw.deadline = "request"``), a deadline per observation bounds its
retries (``raw.deadline = "observation"``), and a response larger than ``max_response_bytes``
once decoded (a gzip bomb is decoded chunk by chunk, so it never fills memory) or a stream of
more than ``max_stream_events`` events is cut and recorded as ``too_large``, keeping only the
first ``raw_keep_bytes`` of what came (``raw.truncated`` says so).
"""

from __future__ import annotations

import asyncio
import itertools
import re
import ssl
import time
import zlib
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import httpx
from httpx_sse import EventSource

from fcbench.adapters.base import Adapter, BuiltRequest, ParsedTurn
from fcbench.adapters.eventstream import EventStreamDecoder, FrameError, frame_event
from fcbench.contract import ProviderErrorOutcome
from fcbench.endpoints import Endpoint
from fcbench.redact import Redactor, json_bytes

CONNECTIONS_PER_CLIENT = 8
"""Connections per pooled client; an endpoint gets as many clients as its concurrency needs."""

RETRYABLE_CODES = frozenset({"rate_limited", "server", "overloaded", "timeout", "bad_response"})
KEEP_RESPONSE_HEADERS = (
    "content-type",
    "retry-after",
    "retry-after-ms",
    "x-request-id",
    "request-id",
    "x-amzn-requestid",
    "x-amzn-errortype",
)


@dataclass
class RetryPolicy:
    """How failed attempts are retried."""

    max_retries: int = 3
    """Retries per request (attempts = 1 + retries at most)."""
    backoff_s: float = 0.25
    """First backoff; doubles per retry unless the provider's hint says otherwise."""
    max_wait_s: float = 20.0
    """Longest single wait, whatever the provider asks."""
    budget: int = 1000
    """Retries allowed for the whole run; once spent, failures are recorded without retrying."""


@dataclass(frozen=True)
class Limits:
    """What one response may cost, whatever the provider sends."""

    max_response_bytes: int = 16 * 1024 * 1024
    """Largest decoded body (or sum of stream event data); beyond it the response is ``too_large``."""
    max_stream_events: int = 100_000
    """Most events one stream may send; beyond it the response is ``too_large``."""
    raw_keep_bytes: int = 64 * 1024
    """Of a cut response, how much of the body is kept in the raw capture."""
    observation_factor: float = 3.0
    """An observation's retries stop once it has run ``observation_factor x timeout_s``."""


StreamEvents = Callable[[httpx.Response], AsyncIterator[tuple[str | None, str]]]
"""Reads a streamed body into ``(event name or None, data)`` pairs as they arrive."""


async def sse_stream_events(response: httpx.Response) -> AsyncIterator[tuple[str | None, str]]:
    """Server-sent events: the ``event:`` name (None for the default ``message``) and the data."""
    async for sse in EventSource(response).aiter_sse():
        yield (sse.event if sse.event != "message" else None, sse.data)


async def eventstream_stream_events(response: httpx.Response) -> AsyncIterator[tuple[str | None, str]]:
    """AWS event-stream frames (:func:`fcbench.adapters.eventstream.frame_event`); raises
    :class:`~fcbench.adapters.eventstream.FrameError` on a bad checksum or a frame cut short."""
    decoder = EventStreamDecoder()
    async for chunk in response.aiter_bytes():
        for frame in decoder.feed(chunk):
            yield frame_event(frame)
    decoder.close()


@dataclass(frozen=True)
class StreamFraming:
    """How a streamed response of one framing (:attr:`Capabilities.stream_framing`) is asked for and read."""

    content_type: str
    """What the response's ``content-type`` must contain to be read as a stream."""
    request_headers: Mapping[str, str]
    """Headers sent with a streamed request (they override the caller's of the same name)."""
    events: StreamEvents
    """The body's ``(event name, data)`` pairs, the same for every framing."""


STREAM_FRAMINGS: Mapping[str, StreamFraming] = MappingProxyType(
    {
        "sse": StreamFraming(
            "text/event-stream",
            {"Accept": "text/event-stream", "Cache-Control": "no-store"},
            sse_stream_events,
        ),
        "aws-eventstream": StreamFraming(
            "application/vnd.amazon.eventstream",
            {"Accept": "application/vnd.amazon.eventstream"},
            eventstream_stream_events,
        ),
    }
)
"""Stream framing -> how the transport reads it; limits, raw capture and cut handling are shared."""


class ResponseTooLarge(Exception):
    """A response passed one of the :class:`Limits` (internal: becomes a ``too_large`` outcome)."""

    def __init__(self, message: str, head: bytes = b"") -> None:
        super().__init__(message)
        self.head = head
        """The start of what was received, for the raw capture."""


class RetryBudget:
    """A run-wide pool of retries shared by every request."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.spent = 0

    def take(self) -> bool:
        """Spend one retry if any is left."""
        if self.spent >= self.total:
            return False
        self.spent += 1
        return True


@dataclass
class Exchange:
    """The result of one logical request, after retries."""

    turn: ParsedTurn
    latency_ms: float
    """Wall time of the final attempt."""
    attempts: int
    raw: dict[str, Any] = field(default_factory=dict)
    """Redacted ``{"request": ..., "response": ..., "attempts": [...]}``."""


def _error_turn(code: str, message: str, status: int | None = None) -> ParsedTurn:
    return ParsedTurn(outcome=ProviderErrorOutcome(code=code, message=message, status=status))


def _kept_headers(response: httpx.Response) -> dict[str, str]:
    return {k: v for k, v in response.headers.items() if k.lower() in KEEP_RESPONSE_HEADERS}


_SURROGATE = re.compile("[\ud800-\udfff]")


def valid_unicode(value: Any) -> Any:
    """A JSON value whose strings can all be written as UTF-8 (``value`` itself when they can).

    JSON escapes can carry UTF-16 surrogates, e.g. an emoji whose two halves a server sent in two
    stream chunks. Such halves are joined into the character they encode; a lone surrogate becomes
    U+FFFD, as an undecodable byte would. A value that encodes as UTF-8 JSON holds none, and is
    returned without being walked.
    """
    if not isinstance(value, str) and json_bytes(value) is not None:
        return value
    return _valid_strings(value)


def _valid_strings(value: Any) -> Any:
    if isinstance(value, str):
        if _SURROGATE.search(value) is None:
            return value
        return value.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    if isinstance(value, list):
        return [_valid_strings(v) for v in value]
    if isinstance(value, dict):
        return {_valid_strings(k): _valid_strings(v) for k, v in value.items()}
    return value


def clean_turn(turn: ParsedTurn, redactor: Redactor) -> ParsedTurn:
    """``turn`` with secrets redacted (a provider may echo the key back) and every string storable."""
    data = turn.model_dump()
    clean = redactor.json(valid_unicode(data))
    return turn if clean == data else ParsedTurn.model_validate(clean)


class Transport:
    """Sends built requests to endpoints; one instance per run (owns the HTTP clients)."""

    def __init__(
        self,
        *,
        timeout_s: float = 30.0,
        retry: RetryPolicy | None = None,
        redactor: Redactor | None = None,
        extra_headers: dict[str, str] | None = None,
        concurrency: int = 64,
        limits: Limits | None = None,
    ) -> None:
        self._timeout = timeout_s
        self._caps = limits or Limits()
        self._retry = retry or RetryPolicy()
        self._budget = RetryBudget(self._retry.budget)
        self._redactor = redactor or Redactor()
        self._extra_headers = extra_headers or {}
        self._concurrency = concurrency
        self._ssl: ssl.SSLContext | None = None
        self._clients: dict[str, list[httpx.AsyncClient]] = {}
        self._rotation: dict[str, itertools.cycle[httpx.AsyncClient]] = {}
        self._limits: dict[str, asyncio.Semaphore] = {}
        self._replicas: dict[str, itertools.cycle[str]] = {}

    @property
    def retries_spent(self) -> int:
        """Retries used so far across the run."""
        return self._budget.spent

    def _client(self, endpoint: Endpoint) -> httpx.AsyncClient:
        """The next client of the endpoint's pool (round-robin).

        httpcore scans every connection of a pool for each request, so one pool of a hundred
        connections costs milliseconds of CPU per request; several small pools keep that flat.
        """
        clients = self._clients.get(endpoint.name)
        if clients is None:
            in_flight = min(endpoint.max_concurrency or self._concurrency, self._concurrency)
            count = max(1, -(-in_flight // CONNECTIONS_PER_CLIENT))
            limits = httpx.Limits(
                max_connections=-(-in_flight // count), max_keepalive_connections=-(-in_flight // count)
            )
            if self._ssl is None:
                self._ssl = httpx.create_ssl_context()
            clients = [
                httpx.AsyncClient(timeout=httpx.Timeout(self._timeout), limits=limits, verify=self._ssl)
                for _ in range(count)
            ]
            self._clients[endpoint.name] = clients
            self._rotation[endpoint.name] = itertools.cycle(clients)
            self._replicas[endpoint.name] = itertools.cycle(endpoint.base_urls)
            if endpoint.max_concurrency:
                self._limits[endpoint.name] = asyncio.Semaphore(endpoint.max_concurrency)
        return next(self._rotation[endpoint.name])

    @asynccontextmanager
    async def _slot(self, endpoint: Endpoint) -> AsyncIterator[None]:
        sem = self._limits.get(endpoint.name)
        if sem is None:
            yield
            return
        async with sem:
            yield

    async def aclose(self) -> None:
        """Close every pooled client."""
        for clients in self._clients.values():
            for client in clients:
                await client.aclose()
        self._clients.clear()

    async def exchange(
        self,
        endpoint: Endpoint,
        adapter: Adapter,
        built: BuiltRequest,
        *,
        api_key: str | None,
        offered_tools: Sequence[str],
        headers: dict[str, str] | None = None,
    ) -> Exchange:
        """Send ``built`` (retrying transient failures) and return the parsed, redacted exchange."""
        client = self._client(endpoint)
        redactor = self._redactor.with_secret(api_key)
        attempts: list[dict[str, Any]] = []
        attempt = 0
        observation_started = time.perf_counter()
        observation_deadline = self._timeout * self._caps.observation_factor
        while True:
            attempt += 1
            base_url = next(self._replicas[endpoint.name])
            send_headers = {**endpoint.headers, **self._extra_headers, **(headers or {})}
            auth_headers, auth_query = endpoint.auth_parts(api_key, adapter.auth_headers)
            send_headers.update(auth_headers)
            if auth_query:
                built = built.model_copy(update={"query": {**built.query, **auth_query}})
            url = base_url + built.path
            async with self._slot(endpoint):
                started = time.perf_counter()
                turn, response_raw, retry_hint = await self._attempt(
                    client, adapter, url, built, send_headers, offered_tools
                )
                latency_ms = (time.perf_counter() - started) * 1000.0
            request_raw = {
                "method": "POST",
                "url": redactor.url(str(httpx.URL(url, params=built.query or None))),
                "headers": redactor.headers(send_headers),
                "body": redactor.json(built.body),
            }
            outcome = turn.outcome
            code = outcome.code if isinstance(outcome, ProviderErrorOutcome) else None
            attempts.append({"status": response_raw.get("status"), "code": code, "latency_ms": latency_ms})
            wait = retry_hint if retry_hint is not None else self._retry.backoff_s * 2 ** (attempt - 1)
            wait = min(max(wait, 0.0), self._retry.max_wait_s)
            elapsed = time.perf_counter() - observation_started
            in_time = elapsed + wait + self._timeout <= observation_deadline
            retry = code in RETRYABLE_CODES and attempt <= self._retry.max_retries
            if retry and not in_time:
                response_raw = {**response_raw, "deadline": "observation"}
                retry = False
            retry = retry and self._budget.take()
            if not retry:
                raw = {"request": request_raw, "response": redactor.raw(valid_unicode(response_raw))}
                if len(attempts) > 1:
                    raw["attempts"] = attempts
                turn = clean_turn(turn, redactor)
                return Exchange(turn=turn, latency_ms=latency_ms, attempts=attempt, raw=raw)
            await asyncio.sleep(wait)

    async def _attempt(
        self,
        client: httpx.AsyncClient,
        adapter: Adapter,
        url: str,
        built: BuiltRequest,
        headers: dict[str, str],
        offered: Sequence[str],
    ) -> tuple[ParsedTurn, dict[str, Any], float | None]:
        """One attempt, cut at ``timeout_s`` for the whole request (headers, body or stream)."""
        try:
            async with asyncio.timeout(self._timeout):
                if built.stream:
                    return await self._attempt_stream(client, adapter, url, built, headers, offered)
                request = client.build_request(
                    "POST", url, json=built.body, params=built.query or None, headers=headers
                )
                response = await client.send(request, stream=True)
                try:
                    cut = await self._read_body(adapter, response)
                finally:
                    await response.aclose()
                return cut or self._finish(adapter, response, offered)
        except TimeoutError:
            message = f"the request took longer than its {self._timeout:g}s deadline"
            return _error_turn("timeout", message), {"deadline": "request"}, None
        except httpx.TimeoutException as exc:
            return (
                _error_turn("timeout", f"timed out after {self._timeout:g}s ({type(exc).__name__})"),
                {},
                None,
            )
        except httpx.HTTPError as exc:
            return _error_turn("server", f"connection failed: {type(exc).__name__}: {exc}"), {}, None

    async def _read_body(
        self, adapter: Adapter, response: httpx.Response
    ) -> tuple[ParsedTurn, dict[str, Any], float | None] | None:
        """Read the whole body; None once it is read, the failed attempt when the connection drops.

        A body cut short after the status line is ``bad_response`` for a 2xx (the answer is lost,
        whatever the model said); an error status still says what failed, so the adapter reads it.
        A stalled read raises ``httpx.TimeoutException`` (``timeout``).
        """
        try:
            await self._read_limited(response)
        except httpx.TimeoutException:
            raise
        except ResponseTooLarge as exc:
            raw = {
                "status": response.status_code,
                "headers": _kept_headers(response),
                "body": exc.head.decode("utf-8", "replace"),
                "truncated": f"{exc} (kept the first {len(exc.head)} bytes)",
            }
            return _error_turn("too_large", str(exc), response.status_code), raw, None
        except (httpx.TransportError, httpx.StreamError, httpx.DecodingError) as exc:
            cut = f"{type(exc).__name__}: {exc}"
            raw = {"status": response.status_code, "headers": _kept_headers(response), "cut": cut}
            if response.status_code >= 400:
                lower = {k.lower(): v for k, v in response.headers.items()}
                error = adapter.parse_error(response.status_code, "", lower)
                return (
                    ParsedTurn(outcome=error),
                    raw,
                    adapter.retry_after_seconds(response.status_code, "", lower),
                )
            message = f"response body cut after the status line ({cut})"
            return _error_turn("bad_response", message, response.status_code), raw, None
        return None

    async def _read_limited(self, response: httpx.Response) -> None:
        """Read and decode the body, stopping at ``max_response_bytes`` decoded.

        gzip and deflate are decoded here with a bound on each step's output, so a gzip bomb costs
        at most the limit (httpx would inflate a whole compressed chunk at once); other encodings
        go through httpx's decoders, bounded per chunk.
        """
        limit = self._caps.max_response_bytes
        encoding = response.headers.get("content-encoding", "").strip().lower()
        wbits = {"gzip": 31, "x-gzip": 31, "deflate": 47}.get(encoding)
        chunks: list[bytes] = []
        size = 0

        def take(piece: bytes) -> None:
            nonlocal size
            size += len(piece)
            chunks.append(piece)
            if size > limit:
                head = b"".join(chunks)[: self._caps.raw_keep_bytes]
                raise ResponseTooLarge(f"response body over {limit} bytes once decoded", head)

        if wbits is None:
            async for chunk in response.aiter_bytes():
                take(chunk)
        else:
            inflate = zlib.decompressobj(wbits=wbits)
            try:
                async for compressed in response.aiter_raw():
                    data = compressed
                    while data:
                        take(inflate.decompress(data, limit - size + 1))
                        data = inflate.unconsumed_tail
                take(inflate.flush())
            except zlib.error as exc:
                raise httpx.DecodingError(f"invalid {encoding} body: {exc}") from exc
        response._content = b"".join(chunks)  # what aread() would have stored

    def _finish(
        self, adapter: Adapter, response: httpx.Response, offered: Sequence[str]
    ) -> tuple[ParsedTurn, dict[str, Any], float | None]:
        body: Any
        try:
            body = response.json()
        except (ValueError, RecursionError):
            body = response.text
        raw = {"status": response.status_code, "headers": _kept_headers(response), "body": body}
        if response.status_code >= 400:
            lower = {k.lower(): v for k, v in response.headers.items()}
            error = adapter.parse_error(response.status_code, body, lower)
            hint = adapter.retry_after_seconds(response.status_code, body, lower)
            return ParsedTurn(outcome=error), raw, hint
        if not isinstance(body, dict):
            return (
                _error_turn("bad_response", "response body is not a JSON object", response.status_code),
                raw,
                None,
            )
        return adapter.parse_response(body, offered), raw, None

    async def _attempt_stream(
        self,
        client: httpx.AsyncClient,
        adapter: Adapter,
        url: str,
        built: BuiltRequest,
        headers: dict[str, str],
        offered: Sequence[str],
    ) -> tuple[ParsedTurn, dict[str, Any], float | None]:
        events: list[tuple[str | None, str]] = []
        params = built.query or None
        framing = STREAM_FRAMINGS[adapter.capabilities.stream_framing]
        send_headers = {**headers, **framing.request_headers}
        async with client.stream(
            "POST", url, json=built.body, params=params, headers=send_headers
        ) as response:
            if response.status_code >= 400:
                return await self._read_body(adapter, response) or self._finish(adapter, response, offered)
            if framing.content_type not in response.headers.get("content-type", ""):
                cut = await self._read_body(adapter, response)
                if cut is not None:
                    return cut
                _, body_raw, _ = self._finish(adapter, response, offered)
                message = f"expected an event stream, got {response.headers.get('content-type')!r}"
                return _error_turn("bad_response", message, response.status_code), body_raw, None
            raw: dict[str, Any] = {
                "status": response.status_code,
                "headers": _kept_headers(response),
                "events": events,
            }
            size = 0
            try:
                async for name, data in framing.events(response):
                    size += len(data)
                    if len(events) >= self._caps.max_stream_events or size > self._caps.max_response_bytes:
                        raise ResponseTooLarge(
                            f"stream over {self._caps.max_stream_events} events or "
                            f"{self._caps.max_response_bytes} bytes"
                        )
                    events.append((name, data))
            except ResponseTooLarge as exc:
                kept, total = [], 0
                for event in events:
                    total += len(event[1])
                    if total > self._caps.raw_keep_bytes:
                        break
                    kept.append(event)
                raw["events"], raw["truncated"] = kept, f"{exc} (kept the first {len(kept)} events)"
                return _error_turn("too_large", str(exc), response.status_code), raw, None
            except httpx.TimeoutException:
                raw["cut"] = "timeout"
                return _error_turn("timeout", f"stream stalled after {len(events)} events"), raw, None
            except (httpx.TransportError, httpx.StreamError) as exc:
                raw["cut"] = f"{type(exc).__name__}: {exc}"
                return _error_turn("bad_response", f"stream cut after {len(events)} events"), raw, None
            except FrameError as exc:
                raw["cut"] = f"{type(exc).__name__}: {exc}"
                message = f"stream framing broken after {len(events)} events: {exc}"
                return _error_turn("bad_response", message), raw, None
        return adapter.parse_stream(events, offered), raw, None
