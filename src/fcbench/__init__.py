"""fcbench: measure how reliably LLMs call functions, the same way across providers.

Public API (stable): the canonical contract, the grader and the adapter registry.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

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

try:
    __version__ = version("fcbench")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0.0.0"

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
