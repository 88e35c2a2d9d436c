"""Endpoints: where a wire dialect is served, and which environment variable holds its key.

A dialect is not an endpoint. ``openai-chat`` is a wire dialect; OpenAI, vLLM, Ollama and
llama.cpp are endpoints that speak it. A new OpenAI-compatible server is one config entry::

    endpoints:
      mylab: {dialect: openai-chat, base_url: "http://127.0.0.1:8000/v1", api_key_env: MYLAB_KEY}

Gemini on Vertex AI is the ``gemini`` dialect at another address. The built-in ``vertex`` endpoint
is Vertex's global URL with an API key (express mode); a project and region, authenticated by an
access token (``gcloud auth print-access-token``), is one entry::

    endpoints:
      vertex-us:
        dialect: gemini
        base_url: "https://us-central1-aiplatform.googleapis.com/v1/projects/my-project/locations/us-central1/publishers/google"
        auth: bearer
        api_key_env: VERTEX_ACCESS_TOKEN

Built-in ``sim*`` endpoints point at the embedded mock provider; their base URL contains
``{mock}``, replaced by the mock's address when the runner starts it. The built-in ``local``
(openai-chat), ``local-anthropic`` (anthropic-messages) and ``local-responses`` (openai-responses)
endpoints' URLs contain ``{local}``: their model names a model of the local catalogue
(``MODEL[@VARIANT]``), and the CLI starts one llama.cpp server for it, which all three share
(:mod:`fcbench.local`). Both are *managed services*: started
for a run, keyed by :meth:`Endpoint.service_key`, and pinned in the manifest.

This module and the CLI are the only places that read environment variables.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from fcbench.errors import TargetError
from fcbench.suggest import did_you_mean

MOCK_PLACEHOLDER = "{mock}"
LOCAL_PLACEHOLDER = "{local}"
MANAGED_PLACEHOLDERS: Mapping[str, str] = MappingProxyType(
    {"mock": MOCK_PLACEHOLDER, "local": LOCAL_PLACEHOLDER}
)
"""Managed service kind -> the placeholder its endpoints' base URLs contain."""
MANAGED_SERVICE_NAMES: Mapping[str, str] = MappingProxyType(
    {"mock": "embedded mock provider", "local": "managed llama.cpp server"}
)
"""Managed service kind -> what it is called in messages and in the manifest's ``base_url``."""
MOCK_KEY = "sim-key"
"""The mock provider accepts any non-empty key; this one is used when no key variable is set."""


AuthScheme = Literal["dialect", "bearer", "x-api-key", "api-key", "x-goog-api-key", "query"]
"""How an endpoint sends its key: the dialect's own way (``dialect``: Bearer for OpenAI, ``x-api-key``
for Anthropic, ``x-goog-api-key`` for Gemini), one of the named headers (``api-key`` is Azure
OpenAI's), or as a query parameter (``query``, named by ``auth_query_param``)."""

QUERY_VALUE_PATTERN = r"^[A-Za-z0-9_.-]{1,64}$"
"""What an auth query parameter's name or an ``api_version`` may hold."""

KEY_HEADERS: Mapping[str, Callable[[str], dict[str, str]]] = MappingProxyType(
    {
        "bearer": lambda key: {"Authorization": f"Bearer {key}"},
        "x-api-key": lambda key: {"x-api-key": key},
        "api-key": lambda key: {"api-key": key},
        "x-goog-api-key": lambda key: {"x-goog-api-key": key},
    }
)
"""Auth scheme -> the header that carries the key."""


@dataclass(frozen=True)
class RunningService:
    """A managed service started for a run: where it listens, and what the manifest pins about it."""

    url: str
    """Its base address (``http://127.0.0.1:PORT``)."""
    pins: Mapping[str, Any] = field(default_factory=dict)
    """What it is (engine, model checksum, settings), recorded in the run's manifest."""


class Endpoint(BaseModel):
    """A place that serves one wire dialect."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    dialect: str
    """Wire dialect, a key of the adapter registry (``openai-chat``, ``gemini``, ...)."""
    base_url: str | list[str]
    """Base URL, or several replicas the transport balances across."""
    api_key_env: str | None = None
    """Environment variable holding the key; None for servers that need none."""
    headers: dict[str, str] = Field(default_factory=dict)
    """Extra headers sent with every request (never secrets: use ``api_key_env``)."""
    key_required: bool = True
    """False for local servers that accept requests without a key."""
    local: bool = False
    """Local or simulated: costs nothing."""
    max_concurrency: int | None = None
    """Per-endpoint limit on requests in flight (None: only the global limit applies)."""
    auth: AuthScheme = "dialect"
    """How the key is sent (:data:`AuthScheme`); the dialect's other headers (such as
    ``anthropic-version``) are sent whatever the scheme."""
    auth_query_param: str = Field(default="key", pattern=QUERY_VALUE_PATTERN)
    """Query parameter that carries the key when ``auth`` is ``query``."""
    api_version: str | None = Field(default=None, pattern=QUERY_VALUE_PATTERN)
    """Sent as the ``api-version`` query parameter on every request (Azure OpenAI's versioning)."""

    @field_validator("base_url")
    @classmethod
    def _non_empty(cls, value: str | list[str]) -> str | list[str]:
        urls = [value] if isinstance(value, str) else value
        if not urls or any(not u for u in urls):
            raise ValueError("base_url must be a non-empty URL or list of URLs")
        return value

    @property
    def base_urls(self) -> list[str]:
        """All replica base URLs, without trailing slashes."""
        urls = [self.base_url] if isinstance(self.base_url, str) else list(self.base_url)
        return [u.rstrip("/") for u in urls]

    @property
    def managed(self) -> str | None:
        """``mock`` or ``local`` when a managed service serves the endpoint (its URL holds that
        service's placeholder), else None."""
        for kind, placeholder in MANAGED_PLACEHOLDERS.items():
            if any(placeholder in u for u in self.base_urls):
                return kind
        return None

    @property
    def is_mock(self) -> bool:
        """True when the endpoint points at the embedded mock provider."""
        return self.managed == "mock"

    def service_key(self, model: str) -> str | None:
        """Which running service serves ``model`` here: ``mock`` (one for every mock target),
        ``local:MODEL`` (one llama.cpp server per local model), or None for a real address."""
        kind = self.managed
        if kind == "local":
            return target_label(kind, model)
        return kind

    def resolved(self, url: str | None) -> Endpoint:
        """A copy with its managed placeholder replaced by the running service's base URL."""
        kind = self.managed
        if kind is None:
            return self
        if url is None:
            service = MANAGED_SERVICE_NAMES[kind]
            raise TargetError(f"endpoint {self.name!r} needs the {service}, which is not running")
        urls = [u.replace(MANAGED_PLACEHOLDERS[kind], url.rstrip("/")) for u in self.base_urls]
        return self.model_copy(update={"base_url": urls[0] if len(urls) == 1 else urls})

    def api_key(self, environ: Mapping[str, str] | None = None) -> str | None:
        """The key from the environment; raises :class:`TargetError` naming the variable if missing."""
        env = os.environ if environ is None else environ
        if self.api_key_env:
            key = env.get(self.api_key_env)
            if key:
                if not key.isascii() or not key.isprintable():
                    raise TargetError(
                        f"endpoint {self.name!r}: the key in {self.api_key_env} holds a non-ASCII or control "
                        "character (a line break pasted with it?); no request was sent"
                    )
                return key
            if self.key_required:
                raise TargetError(
                    f"endpoint {self.name!r} needs an API key: set the variable {self.api_key_env}"
                )
        return MOCK_KEY if self.is_mock else None

    def auth_parts(
        self, api_key: str | None, dialect_auth: Callable[[str | None], dict[str, str]]
    ) -> tuple[dict[str, str], dict[str, str]]:
        """Headers and query parameters that authenticate a request with ``api_key`` by this
        endpoint's scheme; ``dialect_auth`` is the adapter's own (``Adapter.auth_headers``)."""
        query = {"api-version": self.api_version} if self.api_version else {}
        if self.auth == "dialect" or not api_key:
            return dialect_auth(api_key if self.auth == "dialect" else None), query
        headers = dialect_auth(None)
        if self.auth == "query":
            query[self.auth_query_param] = api_key
        else:
            headers.update(KEY_HEADERS[self.auth](api_key))
        return headers, query

    def key_status(self, environ: Mapping[str, str] | None = None) -> str:
        """``present``, ``missing``, ``optional, not set`` or ``not needed``: never the key itself."""
        env = os.environ if environ is None else environ
        if self.is_mock:
            return "not needed (embedded mock)"
        if self.managed == "local":
            return "not needed (managed llama.cpp server)"
        if self.api_key_env and env.get(self.api_key_env):
            return "present"
        if not self.key_required:
            return "optional, not set" if self.api_key_env else "not needed"
        return "missing"


def _builtin() -> dict[str, Endpoint]:
    entries = [
        Endpoint(
            name="openai",
            dialect="openai-chat",
            base_url="https://api.openai.com/v1",
            api_key_env="OPENAI_API_KEY",
        ),
        Endpoint(
            name="openai-responses",
            dialect="openai-responses",
            base_url="https://api.openai.com/v1",
            api_key_env="OPENAI_API_KEY",
        ),
        Endpoint(
            name="anthropic",
            dialect="anthropic-messages",
            base_url="https://api.anthropic.com",
            api_key_env="ANTHROPIC_API_KEY",
        ),
        Endpoint(
            name="gemini",
            dialect="gemini",
            base_url="https://generativelanguage.googleapis.com/v1beta",
            api_key_env="GEMINI_API_KEY",
        ),
        Endpoint(
            name="bedrock",
            dialect="bedrock-converse",
            base_url="https://bedrock-runtime.us-east-1.amazonaws.com",
            api_key_env="AWS_BEARER_TOKEN_BEDROCK",
            auth="bearer",
        ),
        Endpoint(
            name="gemini-interactions",
            dialect="gemini-interactions",
            base_url="https://generativelanguage.googleapis.com/v1beta",
            api_key_env="GEMINI_API_KEY",
        ),
        Endpoint(
            name="vertex",
            dialect="gemini",
            base_url="https://aiplatform.googleapis.com/v1/publishers/google",
            api_key_env="VERTEX_API_KEY",
        ),
        Endpoint(
            name="ollama",
            dialect="openai-chat",
            base_url="http://127.0.0.1:11434/v1",
            api_key_env="OLLAMA_API_KEY",
            key_required=False,
            local=True,
        ),
        Endpoint(
            name="vllm",
            dialect="openai-chat",
            base_url="http://127.0.0.1:8000/v1",
            api_key_env="VLLM_API_KEY",
            key_required=False,
            local=True,
        ),
        Endpoint(
            name="llamacpp",
            dialect="openai-chat",
            base_url="http://127.0.0.1:8080/v1",
            api_key_env="LLAMACPP_API_KEY",
            key_required=False,
            local=True,
        ),
        Endpoint(
            name="local",
            dialect="openai-chat",
            base_url=f"{LOCAL_PLACEHOLDER}/v1",
            local=True,
            key_required=False,
            max_concurrency=1,
        ),
        Endpoint(
            name="local-anthropic",
            dialect="anthropic-messages",
            base_url=LOCAL_PLACEHOLDER,
            local=True,
            key_required=False,
            max_concurrency=1,
        ),
        Endpoint(
            name="local-responses",
            dialect="openai-responses",
            base_url=f"{LOCAL_PLACEHOLDER}/v1",
            local=True,
            key_required=False,
            max_concurrency=1,
        ),
        Endpoint(
            name="sim",
            dialect="openai-chat",
            base_url=f"{MOCK_PLACEHOLDER}/v1",
            local=True,
            key_required=False,
        ),
        Endpoint(
            name="sim-responses",
            dialect="openai-responses",
            base_url=f"{MOCK_PLACEHOLDER}/v1",
            local=True,
            key_required=False,
        ),
        Endpoint(
            name="sim-anthropic",
            dialect="anthropic-messages",
            base_url=MOCK_PLACEHOLDER,
            local=True,
            key_required=False,
        ),
        Endpoint(
            name="sim-gemini",
            dialect="gemini",
            base_url=f"{MOCK_PLACEHOLDER}/v1beta",
            local=True,
            key_required=False,
        ),
        Endpoint(
            name="sim-bedrock",
            dialect="bedrock-converse",
            base_url=MOCK_PLACEHOLDER,
            local=True,
            key_required=False,
        ),
        Endpoint(
            name="sim-interactions",
            dialect="gemini-interactions",
            base_url=f"{MOCK_PLACEHOLDER}/v1beta",
            local=True,
            key_required=False,
        ),
    ]
    return {e.name: e for e in entries}


BUILTIN_ENDPOINTS: Mapping[str, Endpoint] = _builtin()

DEFAULT_TARGETS: tuple[str, ...] = (
    "sim:sim-careful",
    "sim-responses:sim-eager",
    "sim-anthropic:sim-sloppy",
    "sim-gemini:sim-flaky",
)
"""The no-key default: one simulated model per dialect, so all four wire protocols are exercised."""


def all_endpoints(user: Mapping[str, Endpoint] | None = None) -> dict[str, Endpoint]:
    """Built-in endpoints overlaid with user-defined ones (a user entry replaces a built-in of that name)."""
    merged = dict(BUILTIN_ENDPOINTS)
    merged.update(user or {})
    return merged


def parse_target(spec: str, endpoints: Mapping[str, Endpoint]) -> tuple[Endpoint, str]:
    """Split ``ENDPOINT:MODEL`` and look the endpoint up (model names may contain colons)."""
    name, sep, model = spec.partition(":")
    if not sep or not name or not model:
        raise TargetError(f"target {spec!r} must have the form ENDPOINT:MODEL")
    endpoint = endpoints.get(name)
    if endpoint is None:
        raise TargetError(
            f"target {spec!r}: unknown endpoint {name!r}{did_you_mean(name, sorted(endpoints))}; "
            f"known: {', '.join(sorted(endpoints))}"
        )
    return endpoint, model


def target_label(endpoint: str, model: str) -> str:
    """``ENDPOINT:MODEL``: the one way a target is named (command line, records, reports), read by
    :func:`parse_target`."""
    return f"{endpoint}:{model}"


def label_of(target: Mapping[str, Any]) -> str:
    """:func:`target_label` of a record's or manifest's ``target`` dict."""
    return target_label(str(target.get("endpoint")), str(target.get("model")))
