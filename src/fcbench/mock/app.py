"""The mock provider's ASGI app: routes of every dialect, model listing, health.

==========================================================  ====================
route                                                        dialect
==========================================================  ====================
``POST /v1/chat/completions``                                ``openai-chat``
``POST /v1/responses``                                       ``openai-responses``
``POST /v1/messages`` (any query, e.g. ``?beta=true``)       ``anthropic-messages``
``POST /v1/messages/count_tokens``                           ``anthropic-messages``
``POST /{v1,v1beta}/models/{model}:generateContent``         ``gemini``
``POST /{v1,v1beta}/models/{model}:streamGenerateContent``   ``gemini`` (``?alt=sse``)
``POST /{v1,v1beta}/models/{model}:countTokens``             ``gemini``
``POST /v1/[projects/{p}/locations/{l}/]publishers/google/``   ``gemini`` (Vertex AI: the same
``models/{model}:{generateContent,streamGenerateContent}``     methods, a bearer token or a key)
``POST /{v1,v1beta}/interactions``                           ``gemini-interactions``
``POST /model/{modelId}/converse``                           ``bedrock-converse``
``POST /model/{modelId}/converse-stream``                    ``bedrock-converse`` (event stream)
``GET /v1/models``, ``GET /v1beta/models``                   by request headers
``GET /health``                                              --
==========================================================  ====================

Unknown routes and methods are answered with a 404/405 in the shape of the dialect the request
looks like (by path and auth headers).
"""

from __future__ import annotations

from collections.abc import Mapping

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from fcbench.mock.common import MockError
from fcbench.mock.engine import MockEngine, Route
from fcbench.mock.faults import FaultSpec
from fcbench.mock.routing import Router, Rule
from fcbench.mock.sim.base import SimModel

_GEMINI_METHODS = {"generateContent": False, "streamGenerateContent": True, "countTokens": False}
_GEMINI_VERSIONS = ("v1", "v1beta")


def guess_dialect(path: str, headers: Mapping[str, str], query: Mapping[str, str]) -> str:
    """The dialect a request most likely speaks, from its path and auth headers."""
    if path.startswith("/model/"):
        return "bedrock-converse"
    if path.split("/")[2:3] == ["interactions"]:
        return "gemini-interactions"
    if "x-goog-api-key" in headers or "key" in query or path.startswith("/v1beta") or ":" in path:
        return "gemini"
    if "anthropic-version" in headers or "x-api-key" in headers or path.startswith("/v1/messages"):
        return "anthropic-messages"
    if path.startswith("/v1/responses"):
        return "openai-responses"
    return "openai-chat"


class MockApp(Router):
    """The mock provider as an ASGI app: the routes of the module docstring over one engine."""

    def __init__(self, engine: MockEngine) -> None:
        self.engine = engine
        """The request pipeline and the state it keeps (models, faults, request counts)."""
        handle = engine.handle
        routes = {
            ("GET", "/health"): self._health,
            ("POST", "/v1/chat/completions"): lambda request, _: handle(request, "openai-chat", Route()),
            ("POST", "/v1/responses"): lambda request, _: handle(request, "openai-responses", Route()),
            ("POST", "/v1/messages"): lambda request, _: handle(request, "anthropic-messages", Route()),
            ("POST", "/v1/messages/count_tokens"): lambda request, _: handle(
                request, "anthropic-messages", Route(count=True)
            ),
            ("POST", "/{version}/models/{target}"): self._gemini,
            # Vertex AI: with an API key (express mode), and in a project and region (bearer token)
            ("POST", "/v1/publishers/google/models/{target}"): self._vertex,
            ("POST", "/v1/projects/{project}/locations/{location}/publishers/google/models/{target}"): (
                self._vertex
            ),
            ("POST", "/{version}/interactions"): self._interactions,
            # the Bedrock model id may hold ":" and, percent-encoded, "/"
            ("POST", "/model/{model_id:path}/converse"): lambda request, params: handle(
                request, "bedrock-converse", Route(path_model=params["model_id"])
            ),
            ("POST", "/model/{model_id:path}/converse-stream"): lambda request, params: handle(
                request, "bedrock-converse", Route(path_model=params["model_id"], path_stream=True)
            ),
            ("GET", "/v1/models"): self._models_by_headers,
            ("GET", "/v1beta/models"): self._models_gemini,
        }
        super().__init__(
            [Rule(method, path, handler) for (method, path), handler in routes.items()], self._unrouted
        )

    async def _health(self, request: Request, params: Mapping[str, str]) -> Response:
        """Liveness, dialects and model names."""
        engine = self.engine
        return JSONResponse(
            {"status": "ok", "dialects": sorted(engine.dialects), "models": engine.model_names()}
        )

    async def _gemini(self, request: Request, params: Mapping[str, str]) -> Response:
        """Gemini ``models/{model}:generateContent``, ``:streamGenerateContent`` and ``:countTokens``."""
        model, _, method = params["target"].rpartition(":")
        if params["version"] not in _GEMINI_VERSIONS or method not in _GEMINI_METHODS or not model:
            return self._unrouted(request, 404)
        stream = _GEMINI_METHODS[method]
        route = Route(
            path_model=model,
            path_stream=stream,
            sse=not stream or request.query_params.get("alt") == "sse",
            count=method == "countTokens",
        )
        return await self.engine.handle(request, "gemini", route)

    async def _vertex(self, request: Request, params: Mapping[str, str]) -> Response:
        """Gemini on Vertex AI: the Gemini methods under ``v1``."""
        return await self._gemini(request, {"version": "v1", "target": params["target"]})

    async def _interactions(self, request: Request, params: Mapping[str, str]) -> Response:
        """Gemini Interactions (``POST /v1beta/interactions``)."""
        if params["version"] not in _GEMINI_VERSIONS:
            return self._unrouted(request, 404)
        return await self.engine.handle(request, "gemini-interactions", Route())

    async def _models_by_headers(self, request: Request, params: Mapping[str, str]) -> Response:
        """Model listing in the shape of the dialect the request looks like."""
        return self._models(request, guess_dialect(request.url.path, request.headers, request.query_params))

    async def _models_gemini(self, request: Request, params: Mapping[str, str]) -> Response:
        """Gemini model listing."""
        return self._models(request, "gemini")

    def _models(self, request: Request, name: str) -> Response:
        dialect = self.engine.dialects[name]
        if dialect.api_key(request.headers, request.query_params) is None:
            return self.engine.error_response(dialect, dialect.missing_key(), "req_models")
        return JSONResponse(dialect.models_list(self.engine.model_names()))

    def _unrouted(self, request: Request, status: int) -> Response:
        """Unknown routes (404) and methods (405) in the guessed dialect's error shape."""
        path = request.url.path
        if status == 405:
            error = MockError(
                "invalid_request", f"Method {request.method} is not allowed for {path}", status=405
            )
        else:
            error = MockError("not_found", f"Invalid URL ({request.method} {path})")
        dialect = self.engine.dialects[guess_dialect(path, request.headers, request.query_params)]
        return self.engine.error_response(dialect, error, "req_unrouted")


def create_app(
    *,
    models: Mapping[str, SimModel] | None = None,
    latency_ms: int = 0,
    faults: str | FaultSpec | None = None,
) -> MockApp:
    """Build a mock-provider app.

    ``models`` replaces the simulated-model registry (``sim-scripted`` is always available);
    ``latency_ms`` delays every model response; ``faults`` is a spec string or
    :class:`~fcbench.mock.faults.FaultSpec` for random faults (raises ConfigError when invalid).
    """
    spec = faults if isinstance(faults, FaultSpec) else FaultSpec.parse(faults)
    return MockApp(MockEngine(models=models, latency_ms=latency_ms, faults=spec))
