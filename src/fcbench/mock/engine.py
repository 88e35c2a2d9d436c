"""The request pipeline every dialect route goes through.

Order, as real providers do it: latency, authentication, required headers, faults (errors,
delays, hangs), JSON parsing, unknown fields (:mod:`fcbench.mock.strict`), request validation
and schema acceptance, model lookup (token-count routes answer here), the
simulated model's reply, then encoding (with stream faults). Any failure becomes an error in the
dialect's own shape; nothing ever answers with a stack trace.
"""

from __future__ import annotations

import asyncio
import dataclasses
import importlib
import logging
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response

from fcbench.mock import wire
from fcbench.mock.common import (
    Decoded,
    IdMaker,
    MockError,
    RenderContext,
    SchemaSizes,
    SseEvent,
    body_digest,
    parse_json,
    reply_tokens,
    request_tokens,
)
from fcbench.mock.count_tokens import COUNT_BODIES, COUNT_RENDER
from fcbench.mock.dialect import Dialect, load_dialects, status_of, stream_media_type
from fcbench.mock.faults import FAULT_HEADER, FaultPlan, FaultSpec, parse_fault_header
from fcbench.mock.rater import rate_reply
from fcbench.mock.scripted import REPLY_HEADER, SCRIPTED_MODEL, ScriptedModel
from fcbench.mock.sim.base import SimModel, SimReply
from fcbench.mock.strict import check_fields

_LOG = logging.getLogger(__name__)
_COUNTER_LIMIT = 200_000
_POLL_S = 0.05

_FAULT_MESSAGES: Mapping[str, str] = {
    "auth": "Invalid API key provided.",
    "rate_limit": "Rate limit reached for requests. Please try again in {wait}s.",
    "overloaded": "Overloaded",
    "server": "The server had an error while processing your request. Sorry about that!",
    "timeout": "The request timed out.",
}


@dataclass(frozen=True)
class Route:
    """What the URL says besides the body: model and streaming (Gemini, Bedrock), SSE or JSON array."""

    path_model: str | None = None
    path_stream: bool = False
    sse: bool = True
    count: bool = False
    """A token-count endpoint (``count_tokens``, ``:countTokens``): answer the count, not a reply."""


class _Gone(Exception):
    """The client went away while the request was hanging."""


def _registry() -> tuple[Callable[[str], SimModel | None], Callable[[], list[str]]] | None:
    """The simulated-model registry (``fcbench.mock.sim``), if that package provides one."""
    try:
        module = importlib.import_module("fcbench.mock.sim")
    except ModuleNotFoundError as exc:
        if exc.name in ("fcbench.mock.sim", "fcbench.mock"):
            return None
        raise
    get_model = getattr(module, "get_model", None)
    model_names = getattr(module, "model_names", None)
    if not callable(get_model) or not callable(model_names):
        return None
    return get_model, model_names


class MockEngine:
    """Per-app state and request handling: dialect objects, models, faults, request counter."""

    def __init__(
        self,
        models: Mapping[str, SimModel] | None = None,
        latency_ms: int = 0,
        faults: FaultSpec | None = None,
    ) -> None:
        self.dialects: dict[str, Dialect] = load_dialects()
        self.latency_ms = latency_ms
        self.faults = faults or FaultSpec()
        self._scripted = ScriptedModel()
        self._models = dict(models) if models is not None else None
        self._registry = None if models is not None else _registry()
        self._seen: OrderedDict[str, int] = OrderedDict()
        self._bomb: bytes | None = None
        """The ``gzip_bomb`` body, built the first time the fault is drawn."""
        self._schema_sizes = SchemaSizes()
        """Each tool schema's share of the input token estimate, kept across requests."""

    # ---------------------------------------------------------------- models
    def get_model(self, name: str) -> SimModel | None:
        """The simulated model called ``name``, or None."""
        if name == SCRIPTED_MODEL:
            return self._scripted
        if self._models is not None:
            return self._models.get(name)
        if self._registry is not None:
            return self._registry[0](name)
        return None

    def model_names(self) -> list[str]:
        """Every model this server answers to."""
        if self._models is not None:
            others = sorted(self._models)
        elif self._registry is not None:
            others = list(self._registry[1]())
        else:
            others = []
        return [SCRIPTED_MODEL, *(name for name in others if name != SCRIPTED_MODEL)]

    def occurrence(self, digest: str) -> int:
        """How many requests with this digest came before (and count this one)."""
        seen = self._seen.pop(digest, 0)
        self._seen[digest] = seen + 1
        while len(self._seen) > _COUNTER_LIMIT:
            self._seen.popitem(last=False)
        return seen

    # ---------------------------------------------------------------- responses
    def error_response(self, dialect: Dialect, error: MockError, request_id: str) -> Response:
        """An error in ``dialect``'s shape."""
        body, headers = dialect.error_body(error, request_id)
        return wire.json_response(status_of(dialect, error), body, {**_id_headers(request_id), **headers})

    async def handle(self, request: Request, dialect_name: str, route: Route) -> Response:
        """Answer one model request in dialect ``dialect_name``."""
        dialect = self.dialects[dialect_name]
        request_id = "req_" + secrets.token_hex(12)
        try:
            return await self._handle(request, dialect, route, request_id)
        except MockError as error:
            return self.error_response(dialect, error, request_id)
        except (_Gone, ClientDisconnect):  # the client went away: nothing to answer, nothing to report
            return Response(status_code=499)
        except Exception:
            _LOG.exception("mock provider failed on %s", request.url.path)
            failure = MockError("server", _FAULT_MESSAGES["server"])
            return self.error_response(dialect, failure, request_id)

    async def _handle(self, request: Request, dialect: Dialect, route: Route, request_id: str) -> Response:
        if self.latency_ms > 0:
            await asyncio.sleep(self.latency_ms / 1000)
        headers = request.headers
        if dialect.api_key(headers, request.query_params) is None:
            raise dialect.missing_key()
        dialect.check_headers(headers)
        raw = await request.body()
        digest = body_digest(request.url.path, raw)
        occurrence = self.occurrence(digest)
        plan = self._plan(headers.get(FAULT_HEADER), digest, occurrence)
        await self._before_answer(plan, request)
        try:
            body = parse_json(raw)
        except ValueError as exc:
            raise dialect.invalid_json(str(exc)) from None
        beta = bool(headers.get("anthropic-beta", "").strip())
        check_fields(dialect.name, body, root="count" if route.count else "request", beta=beta)
        if route.count:
            body = COUNT_BODIES[dialect.name](body)
        decoded = dialect.decode(body, route)
        model = self.get_model(decoded.model)
        if model is None:
            raise dialect.model_not_found(decoded.model)
        if route.count:
            counted = COUNT_RENDER[dialect.name](request_tokens(decoded.request, self._schema_sizes))
            return wire.json_response(200, counted, _id_headers(request_id))
        sim_request = dataclasses.replace(decoded.request, occurrence=occurrence)
        decoded = dataclasses.replace(decoded, request=sim_request)
        reply = self._reply(model, decoded, headers.get(REPLY_HEADER))
        ctx = RenderContext(
            ids=IdMaker(f"{digest}:{occurrence}"),
            created=int(time.time()),
            input_tokens=request_tokens(sim_request, self._schema_sizes),
            output_tokens=reply_tokens(reply),
            fine_arguments=plan.has("split_args"),
        )
        ok_headers = _id_headers(request_id)
        if decoded.stream:
            return self._stream(dialect, reply, decoded, ctx, plan, route, ok_headers)
        if plan.has("huge_body"):
            return wire.huge_json_response(int(plan.value("huge_body", 200)), ok_headers)
        if plan.has("gzip_bomb"):
            if self._bomb is None:
                self._bomb = wire.inflating_bomb()
            return wire.gzip_bomb_response(self._bomb, ok_headers)
        body_out = dialect.render(reply, decoded, ctx)
        if plan.has("malformed_json"):
            return wire.malformed_json_response(body_out, ok_headers)
        if plan.has("stream_cut"):
            return wire.cut_json_response(body_out, ok_headers)
        return wire.json_response(200, body_out, ok_headers)

    def _plan(self, header: str | None, digest: str, occurrence: int) -> FaultPlan:
        if header is not None:
            try:
                return parse_fault_header(header)
            except ValueError as exc:
                raise MockError("invalid_request", str(exc)) from None
        return self.faults.draw(digest, occurrence)

    async def _before_answer(self, plan: FaultPlan, request: Request) -> None:
        """Delays, hangs and error faults, applied before the request is even parsed."""
        if plan.has("slow_first_byte"):
            await asyncio.sleep(plan.value("slow_first_byte", self.faults.slow_ms) / 1000)
        if plan.has("timeout"):
            await _hang(request, plan.value("timeout", self.faults.hang_s))
            raise MockError("timeout", _FAULT_MESSAGES["timeout"])
        chosen = plan.error_kind()
        if chosen is not None:
            name, kind = chosen
            wait = int(plan.value(name, self.faults.retry_after)) if kind == "rate_limit" else None
            message = _FAULT_MESSAGES[kind].format(wait=wait)
            raise MockError(kind, message, retry_after=wait)

    def _reply(self, model: SimModel, decoded: Decoded, header: str | None) -> SimReply:
        if isinstance(model, ScriptedModel) and header is not None:
            try:
                return model.reply_from_header(header)
            except ValueError as exc:
                raise MockError("invalid_request", str(exc)) from None
        return rate_reply(decoded.request) or model.respond(decoded.request)  # a judge request is rated

    def _stream(
        self,
        dialect: Dialect,
        reply: SimReply,
        decoded: Decoded,
        ctx: RenderContext,
        plan: FaultPlan,
        route: Route,
        headers: dict[str, str],
    ) -> Response:
        events = dialect.render_stream(reply, decoded, ctx)
        if not route.sse:
            return wire.json_array_response([event.data for event in events], headers)
        half = max(1, len(events) // 2)
        if plan.has("stream_error"):
            failure = MockError("overloaded", _FAULT_MESSAGES["overloaded"])
            events = [*events[:half], dialect.stream_error(failure, ctx, half)]
        if plan.has("malformed_json"):
            broken = events[half - 1]
            text = broken.data_text()
            events[half - 1] = SseEvent(broken.event, text[: max(1, len(text) // 2)])
        frames = [dialect.frame(event) for event in events]
        media_type = stream_media_type(dialect)
        if plan.has("stream_cut"):
            return wire.stream_response(frames[:half], headers, cut=True, media_type=media_type)
        return wire.stream_response(frames, headers, media_type=media_type)


async def _hang(request: Request, seconds: float) -> None:
    """Wait ``seconds``, or until the client disconnects (then raise _Gone)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if await request.is_disconnected():
            raise _Gone
        await asyncio.sleep(_POLL_S)


def _id_headers(request_id: str) -> dict[str, str]:
    return {"x-request-id": request_id, "request-id": request_id}
