"""Whether a clarification question asks for what is missing.

A case expecting a clarification lists the ``missing`` values. A question (a text that asks and
asserts nothing the user never gave, :mod:`fcbench.grading.text`) is then judged by what it
asks about, read against the words of every offered parameter (:func:`parameter_terms`: the
name, the lexicon's concept terms in eight languages, a property's ``asks_about`` list and the
case's ``expected.asks_about`` terms):

* it asks for a missing value -> ``correct_clarification`` (asking for a given value as well is
  noted in the reasons);
* it asks only for values of the tool to be called that the user gave (or that the call does not
  need) -> ``unnecessary_clarification``;
* it asks about something else, or about nothing the parameters name -> ``wrong_clarification``.

The tool to be called is ``expected.name``; without it, the offered tools that have every
missing parameter (all offered tools when none has).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from fcbench.contract import Tool
from fcbench.grading.text import asked_parameters, parameter_terms
from fcbench.grading.verdict import Decision
from fcbench.suite.models import ExpectClarification


def _properties(tool: Tool) -> Mapping[str, Any]:
    properties = tool.parameters.get("properties")
    return properties if isinstance(properties, Mapping) else {}


def target_tools(expected: ExpectClarification, tools: Mapping[str, Tool]) -> list[Tool]:
    """The tools the clarification prepares a call of (see the module docstring)."""
    if expected.name is not None and expected.name in tools:
        return [tools[expected.name]]
    having = [tool for tool in tools.values() if set(expected.missing) <= set(_properties(tool))]
    return having or list(tools.values())


def question_terms(expected: ExpectClarification, tools: Mapping[str, Tool]) -> dict[str, tuple[str, ...]]:
    """Every parameter a question may ask about -> the words naming it (missing ones first)."""
    schemas: dict[str, list[Mapping[str, Any]]] = {name: [] for name in expected.missing}
    for tool in tools.values():
        for name, schema in _properties(tool).items():
            schemas.setdefault(name, []).append(schema if isinstance(schema, Mapping) else {})
    terms: dict[str, tuple[str, ...]] = {}
    for name, found in schemas.items():
        extra = list(expected.asks_about.get(name, ()))
        words = [term for schema in found or [{}] for term in parameter_terms(name, schema, extra)]
        terms[name] = tuple(dict.fromkeys(words))
    return terms


@dataclass(frozen=True)
class QuestionTopic:
    """What a clarification question asks about, against the case."""

    decision: Decision
    """``correct_clarification``, ``unnecessary_clarification`` or ``wrong_clarification``."""
    reasons: tuple[str, ...] = ()
    """Why, for reports."""


def judge_question(
    asking: tuple[str, ...], text: str, expected: ExpectClarification, tools: Mapping[str, Tool]
) -> QuestionTopic:
    """Judge the asking sentences of a clarification ``text`` (see the module docstring).

    When the asking sentences name no parameter at all ("Could you send the full ID?"), the
    whole text is read for the missing ones ("48213 isn't a complete order ID. ...").
    """
    terms = question_terms(expected, tools)
    asked = asked_parameters(asking, terms)
    if not asked:
        asked = [name for name in asked_parameters([text], terms) if name in expected.missing]
    wanted = ", ".join(expected.missing)
    hits = [name for name in asked if name in expected.missing]
    others = [name for name in asked if name not in expected.missing]
    if hits:
        notes = [f"also asked for {', '.join(others)}, which the user gave or the call does not need"]
        return QuestionTopic("correct_clarification", tuple(notes if others else ()))
    own = {name for tool in target_tools(expected, tools) for name in _properties(tool)}
    if others and set(others) <= own:
        reason = (
            f"asked for {', '.join(others)}, which the user gave or the call does not need; missing: {wanted}"
        )
        return QuestionTopic("unnecessary_clarification", (reason,))
    about = f"asked about {', '.join(others)}" if others else "the question names none of the parameters"
    return QuestionTopic("wrong_clarification", (f"{about}; missing: {wanted}",))


__all__ = ["QuestionTopic", "judge_question", "question_terms", "target_tools"]
