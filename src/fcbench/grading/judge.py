"""The optional judge: a model rates the text replies the rules decided, beside the verdict, never instead.

``fcbench run --judge TARGET`` asks one more target, after every observation whose verdict is
about a text (:data:`JUDGED_DECISIONS`: the clarification decisions, ``guessed_missing`` stated in
text, ``correct_abstention``, ``missed_call`` with a text), to rate that text with a fixed,
versioned rubric (:data:`RUBRIC_FILE`, whose sha256 is pinned here as :data:`RUBRIC_SHA256` and in
the run's manifest). The judge answers by calling one tool, ``rate_reply`` (:func:`rate_tool`),
with a label of :data:`JudgeLabel` and a short reason, so any tool-calling target can judge and
the answer is structured.

The rating is recorded in the record's ``judge`` field (:class:`JudgeRating`) beside the verdict;
the verdict is never changed by it. Whether the judge's label agrees with the deterministic
decision is :data:`AGREEING_LABELS`. A judge that fails (a provider error, a text instead of the
call, a label outside the enum) gives a rating with ``error`` set: coverage of the judge, never of
the target.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

from fcbench.contract import (
    AssistantMessage,
    Outcome,
    ProviderErrorOutcome,
    TextOutcome,
    Tool,
    ToolCallsOutcome,
    ToolResultMessage,
)
from fcbench.contract.values import canonical_json
from fcbench.errors import ConfigError
from fcbench.grading.verdict import Verdict
from fcbench.suite.models import Case, ExpectClarification

RUBRIC_VERSION = "fcbench-judge-1"
"""The rubric's version, recorded in every rating and pinned in the manifest."""
RUBRIC_FILE = Path(__file__).with_name("judge_rubric_v1.md")
"""The rubric's text, sent as the judge's system prompt."""
RUBRIC_SHA256 = "061e55177d1924c9673eedb250589472bc861bd971985f75edc90a7cac85bf5b"
"""sha256 of :data:`RUBRIC_FILE`: a rubric whose text differs is refused (a new text is a new version)."""

RATE_TOOL = "rate_reply"
"""The one tool the judge is offered, and must call."""
MAX_REASON_CHARS = 300
"""Longest judge's reason kept in a rating."""

JudgeLabel = Literal[
    "writes_call", "invents_value", "asks_for_missing", "asks_again", "asks_other", "answers"
]
"""What the judge says a reply does (the rubric's list, in its order of precedence).

``writes_call``: writes a tool call out as text; ``invents_value``: states a value the user never
gave; ``asks_for_missing``: asks for missing information; ``asks_again``: asks only for what the
user gave, or although nothing is missing; ``asks_other``: asks about something else, or nothing
in particular; ``answers``: asks nothing, invents nothing (a greeting, an explanation, a refusal)."""

JUDGE_LABELS: tuple[str, ...] = get_args(JudgeLabel)
"""Every judge label, in the rubric's order."""

AGREEING_LABELS: Mapping[str, frozenset[str]] = MappingProxyType(
    {
        "correct_clarification": frozenset({"asks_for_missing"}),
        "unnecessary_clarification": frozenset({"asks_again"}),
        "wrong_clarification": frozenset({"asks_other"}),
        "guessed_missing": frozenset({"invents_value"}),
        "correct_abstention": frozenset({"answers"}),
        "missed_call": frozenset({"answers", "invents_value"}),
    }
)
"""Deterministic decision -> the judge labels that agree with it."""

JUDGED_DECISIONS: frozenset[str] = frozenset(AGREEING_LABELS)
"""Decisions about a text, which the judge is asked to rate (when the outcome is a text)."""


@dataclass(frozen=True)
class Rubric:
    """The rubric a judge is given: its version, text and hash."""

    version: str
    """:data:`RUBRIC_VERSION`."""
    text: str
    """The rubric, sent as the judge's system prompt."""
    sha256: str
    """sha256 of the text's UTF-8 bytes."""


@cache
def load_rubric() -> Rubric:
    """The shipped rubric; a :class:`~fcbench.errors.ConfigError` when its text is not the pinned one."""
    data = RUBRIC_FILE.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    if digest != RUBRIC_SHA256:
        raise ConfigError(
            f"the shipped rubric {RUBRIC_FILE.name} has sha256 {digest}, not the pinned {RUBRIC_SHA256} "
            f"of {RUBRIC_VERSION} (a changed rubric is a new version); reinstall fcbench",
            key="--judge",
        )
    return Rubric(RUBRIC_VERSION, data.decode("utf-8"), digest)


def rate_tool() -> Tool:
    """``rate_reply``: the judge's answer as a call (a label of :data:`JUDGE_LABELS` and a reason)."""
    return Tool(
        name=RATE_TOOL,
        description="Record your rating of the assistant's reply: one label and a one-sentence reason.",
        parameters={
            "type": "object",
            "properties": {
                "label": {"type": "string", "enum": list(JUDGE_LABELS), "description": "The rubric's label."},
                "reason": {"type": "string", "description": "One short sentence: what made you choose it."},
            },
            "required": ["label", "reason"],
            "additionalProperties": False,
        },
    )


def is_judged(verdict: Verdict, outcome: Outcome) -> bool:
    """Whether the judge rates this observation: a text outcome whose decision is about the text."""
    return (
        isinstance(outcome, TextOutcome)
        and bool(outcome.text.strip())
        and verdict.decision in JUDGED_DECISIONS
    )


def agrees(decision: str, label: str) -> bool:
    """Whether the judge's ``label`` agrees with the deterministic ``decision`` (:data:`AGREEING_LABELS`)."""
    return label in AGREEING_LABELS.get(decision, frozenset())


def _tool_lines(tools: Sequence[Tool]) -> list[str]:
    lines = []
    for tool in tools:
        properties = tool.parameters.get("properties")
        required = tool.parameters.get("required")
        required_names = set(required) if isinstance(required, list) else set()
        params = []
        for name, schema in (properties if isinstance(properties, Mapping) else {}).items():
            about = schema.get("description", "") if isinstance(schema, Mapping) else ""
            mark = " (required)" if name in required_names else ""
            params.append(f"    - {name}{mark}{': ' + about if about else ''}")
        lines += [f"- {tool.name}: {tool.description}".rstrip(), *params]
    return lines or ["(none)"]


def _turn_lines(case: Case) -> list[str]:
    lines = []
    for message in case.history:
        if isinstance(message, AssistantMessage):
            calls = "".join(f" [called {c.name} {canonical_json(c.arguments)}]" for c in message.calls)
            lines.append(f"assistant: {message.content or ''}{calls}")
        elif isinstance(message, ToolResultMessage):
            lines.append(f"tool {message.name} returned: {canonical_json(message.content)}")
        else:
            lines.append(f"{message.role}: {message.content}")
    return [*lines, f"user: {case.prompt}"]


def judge_prompt(case: Case, tools: Sequence[Tool], reply: str) -> str:
    """The material the judge rates: the conversation, the tools offered, what is missing, the reply."""
    expected = case.expected
    missing = ", ".join(expected.missing) if isinstance(expected, ExpectClarification) else "nothing"
    parts = [
        "## Conversation",
        *_turn_lines(case),
        "",
        "## Tools the assistant was offered",
        *_tool_lines(tools),
        "",
        "## Information the request still lacks",
        missing,
        "",
        "## The assistant's reply (text, no tool call)",
        reply,
    ]
    return "\n".join(parts)


class JudgeRating(BaseModel):
    """The judge's rating of one observation, recorded beside its verdict (``record.judge``)."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    target: str
    """The judge target, ``endpoint:model``."""
    rubric: str = RUBRIC_VERSION
    """The rubric's version."""
    label: JudgeLabel | None = None
    """The judge's label; null when the judge gave none (see ``error``)."""
    reason: str | None = None
    """The judge's reason, as given (cut at :data:`MAX_REASON_CHARS`)."""
    error: str | None = None
    """Why the judge gave no usable rating (its provider error, a text instead of the call, a label
    outside the rubric): coverage of the judge, never of the target; null when it rated."""
    outcome: Outcome | None = None
    """The judge's reply, canonical, exactly as produced."""
    anomalies: list[str] = Field(default_factory=list)
    """Anomaly codes the adapter noticed in the judge's reply."""
    latency_ms: float | None = None
    """Wall time of the judge's exchange, retries included."""
    attempts: int = 1
    """HTTP attempts the judge's request took."""
    raw: dict[str, Any] = Field(default_factory=dict)
    """The judge's redacted raw exchange."""


def _failure(target: str, why: str) -> dict[str, Any]:
    return {"target": target, "error": why[:MAX_REASON_CHARS]}


def read_rating(target: str, outcome: Outcome) -> dict[str, Any]:
    """The label and reason (or the error) of the judge's reply ``outcome``: :class:`JudgeRating` fields."""
    if isinstance(outcome, ProviderErrorOutcome):
        return _failure(target, f"provider error {outcome.code}: {outcome.message}")
    if not isinstance(outcome, ToolCallsOutcome):
        return _failure(target, f"answered with {outcome.kind}, not a {RATE_TOOL} call")
    calls = [call for call in outcome.calls if call.name == RATE_TOOL]
    if len(calls) != 1:
        names = ", ".join(call.name for call in outcome.calls)
        return _failure(target, f"made {len(calls)} {RATE_TOOL} calls (calls: {names})")
    arguments = calls[0].arguments
    if not isinstance(arguments, Mapping):
        return _failure(target, f"{RATE_TOOL} arguments are not an object: {calls[0].raw_arguments!r:.120}")
    label, reason = arguments.get("label"), arguments.get("reason")
    if label not in JUDGE_LABELS:
        return _failure(
            target, f"label {json.dumps(label, ensure_ascii=False)[:80]} is not one of the rubric's"
        )
    kept = reason[:MAX_REASON_CHARS] if isinstance(reason, str) else None
    return {"target": target, "label": label, "reason": kept}


__all__ = [
    "AGREEING_LABELS",
    "JUDGED_DECISIONS",
    "JUDGE_LABELS",
    "RATE_TOOL",
    "RUBRIC_FILE",
    "RUBRIC_SHA256",
    "RUBRIC_VERSION",
    "JudgeLabel",
    "JudgeRating",
    "Rubric",
    "agrees",
    "is_judged",
    "judge_prompt",
    "load_rubric",
    "rate_tool",
    "read_rating",
]
