"""Endpoints: where a wire dialect is served, and which environment variable holds its key.

A dialect is not an endpoint. ``openai-chat`` is a wire dialect; OpenAI, vLLM, Ollama and
llama.cpp are endpoints that speak it. A new OpenAI-compatible server is one config entry::

    endpoints:
      mylab: {dialect: openai-chat, base_url: "http://127.0.0.1:8000/v1", api_key_env: MYLAB_KEY}

Built-in ``sim*`` endpoints point at the embedded mock provider; their base URL contains
``{mock}``, replaced by the mock's address when the runner starts it.

This module and the CLI are the only places that read environment variables.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from fcbench.errors import TargetError

MOCK_PLACEHOLDER = "{mock}"
MOCK_KEY = "sim-key"
"""The mock provider accepts any non-empty key; this one is used when no key variable is set."""


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
    def is_mock(self) -> bool:
        """True when the endpoint points at the embedded mock provider."""
        return any(MOCK_PLACEHOLDER in u for u in self.base_urls)

    def resolved(self, mock_url: str | None) -> Endpoint:
        """A copy with ``{mock}`` replaced by the running mock's base URL."""
        if not self.is_mock:
            return self
        if mock_url is None:
            raise TargetError(f"endpoint {self.name!r} needs the mock provider, which is not running")
        urls = [u.replace(MOCK_PLACEHOLDER, mock_url.rstrip("/")) for u in self.base_urls]
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

    def key_status(self, environ: Mapping[str, str] | None = None) -> str:
        """``present``, ``missing``, ``optional, not set`` or ``not needed``: never the key itself."""
        env = os.environ if environ is None else environ
        if self.is_mock:
            return "not needed (embedded mock)"
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
            f"target {spec!r}: unknown endpoint {name!r}; known: {', '.join(sorted(endpoints))}"
        )
    return endpoint, model


def target_label(endpoint: str, model: str) -> str:
    """``ENDPOINT:MODEL``: the one way a target is named (command line, records, reports), read by
    :func:`parse_target`."""
    return f"{endpoint}:{model}"


def label_of(target: Mapping[str, Any]) -> str:
    """:func:`target_label` of a record's or manifest's ``target`` dict."""
    return target_label(str(target.get("endpoint")), str(target.get("model")))
