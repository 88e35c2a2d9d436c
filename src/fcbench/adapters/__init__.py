"""Registry of wire-dialect adapters.

Built-in dialects are listed in :data:`BUILTIN_ADAPTERS`; third-party packages add more through
the ``fcbench.adapters`` entry-point group (name = dialect, value = ``module:Class``).
"""

from __future__ import annotations

import importlib
from functools import cache
from importlib.metadata import entry_points

from fcbench.adapters.base import Adapter
from fcbench.errors import TargetError

BUILTIN_ADAPTERS: dict[str, str] = {
    "anthropic-messages": "fcbench.adapters.anthropic_messages:AnthropicMessages",
    "bedrock-converse": "fcbench.adapters.bedrock_converse:BedrockConverse",
    "gemini": "fcbench.adapters.gemini:Gemini",
    "gemini-interactions": "fcbench.adapters.gemini_interactions:GeminiInteractions",
    "openai-chat": "fcbench.adapters.openai_chat:OpenAIChat",
    "openai-responses": "fcbench.adapters.openai_responses:OpenAIResponses",
}


def registry() -> dict[str, str]:
    """Dialect name -> ``module:Class`` for built-in and entry-point adapters."""
    found = dict(BUILTIN_ADAPTERS)
    for ep in entry_points(group="fcbench.adapters"):
        found.setdefault(ep.name, ep.value)
    return found


def dialects() -> list[str]:
    """Names of every known dialect, sorted."""
    return sorted(registry())


@cache
def get(dialect: str) -> Adapter:
    """Return the adapter instance for ``dialect`` (adapters are stateless, so one instance serves all)."""
    spec = registry().get(dialect)
    if spec is None:
        raise TargetError(f"unknown dialect {dialect!r}; known: {', '.join(dialects())}")
    module_name, _, class_name = spec.partition(":")
    adapter: Adapter = getattr(importlib.import_module(module_name), class_name)()
    return adapter


__all__ = ["BUILTIN_ADAPTERS", "dialects", "get", "registry"]
