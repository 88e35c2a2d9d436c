"""The :class:`Transport`: pooled sessions, retries, deadlines, and the fault taxonomy of
:mod:`fcbench.transport` applied to each attempt."""

from __future__ import annotations

import asyncio
import codecs
import itertools
import json
import os
import ssl
import time
import urllib.parse
import urllib.request
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import aiohttp
import certifi
from yarl import URL

from fcbench.adapters.base import Adapter, BuiltRequest, ParsedTurn
from fcbench.adapters.eventstream import FrameError
from fcbench.contract import ProviderErrorOutcome
from fcbench.contract.json_text import compact_json, parse_json
from fcbench.endpoints import Endpoint
from fcbench.redact import Redactor
from fcbench.transport.capture import (
    clean_turn,
    error_turn,
    kept_headers,
    unsendable_headers,
    valid_unicode,
)
from fcbench.transport.policy import RETRYABLE_CODES, Limits, RetryBudget, RetryPolicy
from fcbench.transport.streams import (
    ACCEPT_ENCODING,
    STREAM_FRAMINGS,
    BodyDecodingError,
    Chunks,
    StreamFraming,
    inflated,
)

CONNECTIONS_PER_SESSION = 8
"""Connections per pooled session; an endpoint gets as many sessions as its concurrency needs."""


@dataclass
class Exchange:
    """The result of one logical request, after retries."""

    turn: ParsedTurn
    latency_ms: float
    """Wall time of the final attempt."""
    attempts: int
    raw: dict[str, Any] = field(default_factory=dict)
    """Redacted ``{"request": ..., "response": ..., "attempts": [...]}``."""


Attempt = tuple[ParsedTurn, dict[str, Any], float | None]
"""One attempt's parsed turn, its raw response, and the provider's retry hint in seconds."""


def _lower_headers(response: aiohttp.ClientResponse) -> dict[str, str]:
    return {k.lower(): v for k, v in response.headers.items()}


def _ssl_context() -> ssl.SSLContext:
    """Certificates from ``SSL_CERT_FILE`` or ``SSL_CERT_DIR`` when set, else certifi's bundle."""
    cafile, capath = os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR")
    if cafile or capath:
        return ssl.create_default_context(cafile=cafile, capath=capath)
    return ssl.create_default_context(cafile=certifi.where())


def env_proxy(url: str) -> str | None:
    """The proxy the environment names for ``url`` (``HTTPS_PROXY``, ``HTTP_PROXY``, ``ALL_PROXY``,
    any case), or None when there is none or ``NO_PROXY`` exempts its host."""
    parts = urllib.parse.urlsplit(url)
    if urllib.request.proxy_bypass(parts.hostname or ""):
        return None
    proxies = urllib.request.getproxies()
    return proxies.get(parts.scheme) or proxies.get("all")


def json_body(body: Any) -> bytes:
    """A request body as sent: compact UTF-8 JSON, keys in order, no NaN (ValueError); the bytes
    ``json.dumps`` writes, made by msgspec where that is exact (:func:`compact_json`)."""
    data = compact_json(body)
    if b"NaN" in data or b"Infinity" in data:  # json's words for them: refused, as json refuses them
        return json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()
    return data


class Transport:
    """Sends built requests to endpoints; one instance per run (owns the HTTP sessions)."""

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
        self._sessions: dict[str, list[aiohttp.ClientSession]] = {}
        self._rotation: dict[str, itertools.cycle[aiohttp.ClientSession]] = {}
        self._proxies: dict[str, str | None] = {}
        self._limits: dict[str, asyncio.Semaphore] = {}
        self._replicas: dict[str, itertools.cycle[str]] = {}

    @property
    def retries_spent(self) -> int:
        """Retries used so far across the run."""
        return self._budget.spent

    def _session(self, endpoint: Endpoint) -> aiohttp.ClientSession:
        """The next session of the endpoint's pool (round-robin; made on first use, in the running
        event loop).

        An endpoint gets one session per :data:`CONNECTIONS_PER_SESSION` connections it may have
        in flight: measured against one stub, several small pools answer sooner than one large one
        (``benchmarks/peers.py``). Each session never follows redirects, and leaves bodies
        compressed: the transport inflates them itself (:meth:`_chunks`), so a gzip bomb costs at
        most the limit. Proxies come from the environment (:func:`env_proxy`).
        """
        sessions = self._sessions.get(endpoint.name)
        if sessions is None:
            in_flight = min(endpoint.max_concurrency or self._concurrency, self._concurrency)
            count = max(1, -(-in_flight // CONNECTIONS_PER_SESSION))
            tls: ssl.SSLContext | bool = True  # aiohttp's default; never used over plain HTTP
            if any(url.lower().startswith("https:") for url in endpoint.base_urls):
                self._ssl = tls = self._ssl or _ssl_context()  # loading certificates takes ~40 ms
            timeout = aiohttp.ClientTimeout(total=None, sock_connect=self._timeout, sock_read=self._timeout)
            sessions = [
                aiohttp.ClientSession(
                    connector=aiohttp.TCPConnector(limit=-(-in_flight // count), ssl=tls),
                    timeout=timeout,
                    auto_decompress=False,
                )
                for _ in range(count)
            ]
            self._sessions[endpoint.name] = sessions
            self._rotation[endpoint.name] = itertools.cycle(sessions)
            self._replicas[endpoint.name] = itertools.cycle(endpoint.base_urls)
            self._proxies.update({url: env_proxy(url) for url in endpoint.base_urls})
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
        """Close every pooled session."""
        for sessions in self._sessions.values():
            for session in sessions:
                await session.close()
        self._sessions.clear()

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
        session = self._session(endpoint)
        redactor = self._redactor.with_secret(api_key)
        body = json_body(built.body)
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
            url = URL(base_url + built.path)
            query = {**built.query, **auth_query}
            if query:
                url = url.update_query(query)
            async with self._slot(endpoint):
                started = time.perf_counter()
                turn, response_raw, retry_hint = await self._attempt(
                    session,
                    adapter,
                    url,
                    body,
                    built.stream,
                    send_headers,
                    offered_tools,
                    self._proxies[base_url],
                )
                latency_ms = (time.perf_counter() - started) * 1000.0
            request_raw = {
                "method": "POST",
                "url": redactor.url(str(url)),
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
        session: aiohttp.ClientSession,
        adapter: Adapter,
        url: URL,
        body: bytes,
        stream: bool,
        headers: dict[str, str],
        offered: Sequence[str],
        proxy: str | None,
    ) -> Attempt:
        """One attempt, cut at ``timeout_s`` for the whole request (headers, body or stream).

        A read that stalls for ``timeout_s`` is aiohttp's socket timeout; the whole request
        running past ``timeout_s`` is the deadline's (``raw.deadline = "request"``).
        """
        send_headers = {**headers, "Content-Type": "application/json", "Accept-Encoding": ACCEPT_ENCODING}
        framing = STREAM_FRAMINGS[adapter.capabilities.stream_framing] if stream else None
        if framing is not None:
            send_headers.update(framing.request_headers)
        unsendable = unsendable_headers(send_headers)
        if unsendable:
            message = f"header {unsendable[0]!r} holds a line break or NUL (a key pasted with it?); not sent"
            return error_turn("harness", message), {}, None
        deadline = asyncio.timeout(self._timeout)
        try:
            async with (
                deadline,
                session.post(
                    url, data=body, headers=send_headers, allow_redirects=False, proxy=proxy
                ) as response,
            ):
                if framing is not None:
                    return await self._read_stream(adapter, response, framing, offered)
                read = await self._read_body(adapter, response)
                return read if isinstance(read, tuple) else self._finish(adapter, response, read, offered)
        except TimeoutError as exc:
            if deadline.expired():
                message = f"the request took longer than its {self._timeout:g}s deadline"
                return error_turn("timeout", message), {"deadline": "request"}, None
            message = f"timed out after {self._timeout:g}s ({type(exc).__name__})"
            return error_turn("timeout", message), {}, None
        except aiohttp.ClientError as exc:
            return error_turn("server", f"connection failed: {type(exc).__name__}: {exc}"), {}, None

    def _chunks(self, response: aiohttp.ClientResponse) -> Chunks:
        """The body's bytes as they arrive, inflated (:func:`~fcbench.transport.streams.inflated`)."""
        encoding = response.headers.get("content-encoding", "")
        return inflated(response.content.iter_any(), encoding, self._caps.max_response_bytes + 1)

    async def _read_body(self, adapter: Adapter, response: aiohttp.ClientResponse) -> bytes | Attempt:
        """The whole decoded body, or the failed attempt when it is too large or the connection drops.

        A body cut short after the status line is ``bad_response`` for a 2xx (the answer is lost,
        whatever the model said); an error status still says what failed, so the adapter reads it.
        A stalled read raises ``TimeoutError`` (``timeout``).
        """
        limit = self._caps.max_response_bytes
        chunks: list[bytes] = []
        size = 0
        try:
            async for chunk in self._chunks(response):
                size += len(chunk)
                chunks.append(chunk)
                if size > limit:
                    head = b"".join(chunks)[: self._caps.raw_keep_bytes]
                    message = f"response body over {limit} bytes once decoded"
                    raw = {
                        "status": response.status,
                        "headers": kept_headers(response.headers),
                        "body": head.decode("utf-8", "replace"),
                        "truncated": f"{message} (kept the first {len(head)} bytes)",
                    }
                    return error_turn("too_large", message, response.status), raw, None
        except TimeoutError:
            raise
        except (aiohttp.ClientError, BodyDecodingError) as exc:
            cut = f"{type(exc).__name__}: {exc}"
            raw = {"status": response.status, "headers": kept_headers(response.headers), "cut": cut}
            if response.status >= 400:
                lower = _lower_headers(response)
                error = adapter.parse_error(response.status, "", lower)
                return ParsedTurn(outcome=error), raw, adapter.retry_after_seconds(response.status, "", lower)
            message = f"response body cut after the status line ({cut})"
            return error_turn("bad_response", message, response.status), raw, None
        return b"".join(chunks)

    def _finish(
        self, adapter: Adapter, response: aiohttp.ClientResponse, content: bytes, offered: Sequence[str]
    ) -> Attempt:
        body: Any
        try:
            body = parse_json(content)
        except (ValueError, RecursionError):
            body = content.decode(_charset(response), "replace")
        raw = {"status": response.status, "headers": kept_headers(response.headers), "body": body}
        if response.status >= 400:
            lower = _lower_headers(response)
            error = adapter.parse_error(response.status, body, lower)
            hint = adapter.retry_after_seconds(response.status, body, lower)
            return ParsedTurn(outcome=error), raw, hint
        if not isinstance(body, dict):
            return (
                error_turn("bad_response", "response body is not a JSON object", response.status),
                raw,
                None,
            )
        return adapter.parse_response(body, offered), raw, None

    async def _read_stream(
        self,
        adapter: Adapter,
        response: aiohttp.ClientResponse,
        framing: StreamFraming,
        offered: Sequence[str],
    ) -> Attempt:
        if response.status >= 400 or framing.content_type not in response.headers.get("content-type", ""):
            read = await self._read_body(adapter, response)
            if isinstance(read, tuple):
                return read
            finished = self._finish(adapter, response, read, offered)
            if response.status >= 400:
                return finished
            message = f"expected an event stream, got {response.headers.get('content-type')!r}"
            return error_turn("bad_response", message, response.status), finished[1], None
        events: list[tuple[str | None, str]] = []
        raw: dict[str, Any] = {
            "status": response.status,
            "headers": kept_headers(response.headers),
            "events": events,
        }
        caps, size = self._caps, 0
        try:
            async for name, data in framing.events(self._chunks(response)):
                size += len(data)
                if len(events) >= caps.max_stream_events or size > caps.max_response_bytes:
                    return _stream_too_large(caps, response.status, raw, events)
                events.append((name, data))
        except TimeoutError:
            raw["cut"] = "timeout"
            return error_turn("timeout", f"stream stalled after {len(events)} events"), raw, None
        except (aiohttp.ClientError, BodyDecodingError) as exc:
            raw["cut"] = f"{type(exc).__name__}: {exc}"
            return error_turn("bad_response", f"stream cut after {len(events)} events"), raw, None
        except FrameError as exc:
            raw["cut"] = f"{type(exc).__name__}: {exc}"
            message = f"stream framing broken after {len(events)} events: {exc}"
            return error_turn("bad_response", message), raw, None
        return adapter.parse_stream(events, offered), raw, None


def _stream_too_large(
    caps: Limits, status: int, raw: dict[str, Any], events: list[tuple[str | None, str]]
) -> Attempt:
    """A stream cut at the limits: ``too_large``, keeping its first ``raw_keep_bytes`` of events."""
    message = f"stream over {caps.max_stream_events} events or {caps.max_response_bytes} bytes"
    kept, total = [], 0
    for event in events:
        total += len(event[1])
        if total > caps.raw_keep_bytes:
            break
        kept.append(event)
    raw["events"], raw["truncated"] = kept, f"{message} (kept the first {len(kept)} events)"
    return error_turn("too_large", message, status), raw, None


def _charset(response: aiohttp.ClientResponse) -> str:
    """The body's declared charset when Python knows it, else UTF-8."""
    charset = response.charset or "utf-8"
    try:
        codecs.lookup(charset)
    except LookupError:
        return "utf-8"
    return charset
