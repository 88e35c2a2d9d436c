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

from fastapi import FastAPI
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from fcbench.mock.common import MockError
from fcbench.mock.engine import MockEngine, Route
from fcbench.mock.faults import FaultSpec
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


def create_app(
    *,
    models: Mapping[str, SimModel] | None = None,
    latency_ms: int = 0,
    faults: str | FaultSpec | None = None,
) -> FastAPI:
    """Build a mock-provider app.

    ``models`` replaces the simulated-model registry (``sim-scripted`` is always available);
    ``latency_ms`` delays every model response; ``faults`` is a spec string or
    :class:`~fcbench.mock.faults.FaultSpec` for random faults (raises ConfigError when invalid).
    """
    spec = faults if isinstance(faults, FaultSpec) else FaultSpec.parse(faults)
    engine = MockEngine(models=models, latency_ms=latency_ms, faults=spec)
    app = FastAPI(title="fcbench mock provider", docs_url=None, redoc_url=None, openapi_url=None)
    app.state.engine = engine

    @app.get("/health")
    async def health() -> dict[str, object]:
        """Liveness, dialects and model names."""
        return {"status": "ok", "dialects": sorted(engine.dialects), "models": engine.model_names()}

    @app.post("/v1/chat/completions")
    async def chat_completions(request: Request) -> Response:
        """OpenAI Chat Completions."""
        return await engine.handle(request, "openai-chat", Route())

    @app.post("/v1/responses")
    async def responses(request: Request) -> Response:
        """OpenAI Responses."""
        return await engine.handle(request, "openai-responses", Route())

    @app.post("/v1/messages")
    async def messages(request: Request) -> Response:
        """Anthropic Messages."""
        return await engine.handle(request, "anthropic-messages", Route())

    @app.post("/v1/messages/count_tokens")
    async def count_tokens(request: Request) -> Response:
        """Anthropic token counting (``{"input_tokens": N}``)."""
        return await engine.handle(request, "anthropic-messages", Route(count=True))

    @app.post("/{version}/models/{target}")
    async def generate_content(request: Request, version: str, target: str) -> Response:
        """Gemini ``models/{model}:generateContent`` and ``:streamGenerateContent``."""
        model, _, method = target.rpartition(":")
        if version not in _GEMINI_VERSIONS or method not in _GEMINI_METHODS or not model:
            return _not_found(engine, request)
        stream = _GEMINI_METHODS[method]
        route = Route(
            path_model=model,
            path_stream=stream,
            sse=not stream or request.query_params.get("alt") == "sse",
            count=method == "countTokens",
        )
        return await engine.handle(request, "gemini", route)

    @app.post("/v1/publishers/google/models/{target}")
    async def vertex_express(request: Request, target: str) -> Response:
        """Gemini on Vertex AI with an API key (express mode): the Gemini methods."""
        return await generate_content(request, "v1", target)

    @app.post("/v1/projects/{project}/locations/{location}/publishers/google/models/{target}")
    async def vertex(request: Request, project: str, location: str, target: str) -> Response:
        """Gemini on Vertex AI in a project and region (bearer token): the Gemini methods."""
        return await generate_content(request, "v1", target)

    @app.post("/{version}/interactions")
    async def interactions(request: Request, version: str) -> Response:
        """Gemini Interactions (``POST /v1beta/interactions``)."""
        if version not in _GEMINI_VERSIONS:
            return _not_found(engine, request)
        return await engine.handle(request, "gemini-interactions", Route())

    @app.post("/model/{model_id:path}/converse")
    async def converse(request: Request, model_id: str) -> Response:
        """Bedrock ``Converse`` (the model id may hold ``:`` and, percent-encoded, ``/``)."""
        return await engine.handle(request, "bedrock-converse", Route(path_model=model_id))

    @app.post("/model/{model_id:path}/converse-stream")
    async def converse_stream(request: Request, model_id: str) -> Response:
        """Bedrock ``ConverseStream``: the answer as an AWS event stream."""
        route = Route(path_model=model_id, path_stream=True)
        return await engine.handle(request, "bedrock-converse", route)

    @app.get("/v1/models")
    async def list_models(request: Request) -> Response:
        """Model listing in the shape of the dialect the request looks like."""
        return _models(
            engine, request, guess_dialect(request.url.path, request.headers, request.query_params)
        )

    @app.get("/v1beta/models")
    async def list_models_gemini(request: Request) -> Response:
        """Gemini model listing."""
        return _models(engine, request, "gemini")

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        """Unknown routes (404) and methods (405) in the guessed dialect's error shape."""
        if exc.status_code == 405:
            return _error(
                engine,
                request,
                MockError(
                    "invalid_request",
                    f"Method {request.method} is not allowed for {request.url.path}",
                    status=405,
                ),
            )
        return _not_found(engine, request)

    return app


def _error(engine: MockEngine, request: Request, error: MockError) -> Response:
    name = guess_dialect(request.url.path, request.headers, request.query_params)
    return engine.error_response(engine.dialects[name], error, "req_unrouted")


def _not_found(engine: MockEngine, request: Request) -> Response:
    message = f"Invalid URL ({request.method} {request.url.path})"
    return _error(engine, request, MockError("not_found", message))


def _models(engine: MockEngine, request: Request, name: str) -> Response:
    dialect = engine.dialects[name]
    if dialect.api_key(request.headers, request.query_params) is None:
        return engine.error_response(dialect, dialect.missing_key(), "req_models")
    return JSONResponse(dialect.models_list(engine.model_names()))
