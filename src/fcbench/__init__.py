"""fcbench: measure how reliably LLMs call functions, the same way across providers.

Public API (stable): the canonical contract, the grader and the adapter registry.

The public names are loaded on first use (PEP 562), so importing a submodule, the command line
for one, pays for none of them (no pydantic, jsonschema or grader); ``from fcbench import grade``
and ``fcbench.grade`` work as before.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fcbench.contract import (
        Anomaly,
        AssistantMessage,
        Outcome,
        ProviderErrorOutcome,
        RefusalOutcome,
        SystemMessage,
        TextOutcome,
        Tool,
        ToolCall,
        ToolCallsOutcome,
        ToolResultMessage,
        Usage,
        UserMessage,
        normalise_arguments,
        parse_message,
        parse_outcome,
    )
    from fcbench.errors import FcbenchError
    from fcbench.grading import Verdict, grade, normalised_outcome_key

    __version__: str

__all__ = [
    "Anomaly",
    "AssistantMessage",
    "FcbenchError",
    "Outcome",
    "ProviderErrorOutcome",
    "RefusalOutcome",
    "SystemMessage",
    "TextOutcome",
    "Tool",
    "ToolCall",
    "ToolCallsOutcome",
    "ToolResultMessage",
    "Usage",
    "UserMessage",
    "Verdict",
    "__version__",
    "grade",
    "normalise_arguments",
    "normalised_outcome_key",
    "parse_message",
    "parse_outcome",
]

_SOURCES: dict[str, tuple[str, ...]] = {
    "fcbench.errors": ("FcbenchError",),
    "fcbench.grading": ("Verdict", "grade", "normalised_outcome_key"),
}
"""The modules defining public names other than the contract's (every other name of ``__all__``
but ``__version__`` comes from :mod:`fcbench.contract`)."""

_MODULE_OF: dict[str, str] = {
    **{name: "fcbench.contract" for name in __all__ if name != "__version__"},
    **{name: module for module, names in _SOURCES.items() for name in names},
}
"""Public name -> the module that defines it, imported when the name is first read."""


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("fcbench")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree
        return "0.0.0"


def __getattr__(name: str) -> Any:
    """Load a public name (or a submodule, such as ``fcbench.adapters``) on first use and keep it."""
    if name == "__version__":
        value: Any = _version()
    elif name in _MODULE_OF:
        value = getattr(importlib.import_module(_MODULE_OF[name]), name)
    elif name.startswith("__"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    else:
        try:
            value = importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{name}":
                raise
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
