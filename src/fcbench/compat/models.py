"""The probe definitions' models: keyword probes, capability probes and the probe set.

Both the shipped probes (``probes.json``) and the probes derived from a suite's own tools
(:mod:`fcbench.compat.derive`) are :class:`KeywordProbe` objects, so one checker and one
classifier judge them all.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

_TOPICS = {
    "tool_choice": "tool_choice",
    "parallel_control": "parallel",
    "strict_mode": "strict",
    "streaming": "stream",
}
"""``requires`` kind -> the word an adapter note about it contains."""

Scope = Literal["keyword", "under", "through"]
"""How a derived keyword probe locates the errors that count (:attr:`KeywordProbe.scope`)."""

Expectation = Literal["call", "no_call", "named", "parallel", "single", "valid", "stream_agrees"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class KeywordProbe(_Strict):
    """A tool plus a prompt that tempts a violation of one keyword family, and how to check calls."""

    id: str
    keyword: str
    """The row label in the keyword matrix."""
    tool: str
    """Name of a tool of the compatibility tool set."""
    prompt: str
    keywords: list[str] = Field(default_factory=list)
    """Validation errors raised by these keywords count as violations."""
    through: list[str] = Field(default_factory=list)
    """Errors whose schema path passes through one of these keywords also count."""
    under: list[str] = Field(default_factory=list)
    """Only errors located under one of these top-level properties count (of any keyword unless
    ``keywords``/``through`` narrow them; the property left out entirely counts only when
    ``required`` is among ``keywords``, otherwise it is an omission)."""
    transform_keywords: list[str] | None = None
    """Schema changes of these keywords mark the probe ``transformed`` (default: ``keywords``;
    with ``under`` set and nothing listed, any change under those properties)."""
    fields: list[str] = Field(default_factory=list)
    """Top-level properties carrying the probed values (a call sending none of them is counted as
    having omitted the value: it honours the keyword only vacuously)."""
    expect_values: dict[str, Any] = Field(default_factory=dict)
    """Values the call must carry (instructions from the tool's description)."""
    defaults: bool = False
    """Every property left unspecified must be absent or equal to its schema ``default``."""
    why: str = ""
    pointer: str | None = None
    """Probes derived from a suite's tools (:mod:`fcbench.compat.derive`): the JSON pointer, inside
    the tool's parameters, of the subschema using the keyword. Only errors there count, as
    :attr:`scope` says, and only schema changes there transform the probe."""
    scope: Scope = "keyword"
    """Derived probes: ``keyword`` counts errors the keyword raised at :attr:`pointer`; ``under``
    any error at or beneath it (or reached through a ``$ref`` beneath it); ``through`` errors
    raised inside the keyword's own subschemas (``allOf`` branches) or, for ``$ref``, behind the
    reference."""
    property: str | None = None
    """Derived probes: where the keyword applies in the arguments (``address.postal_code``,
    ``lines[].quantity``; empty for the arguments object itself)."""
    within: list[str] = Field(default_factory=list)
    """Derived probes of scope ``under``/``through``: pointers whose schema changes (at or beneath
    them) transform the probe."""

    @model_validator(mode="after")
    def _has_a_check(self) -> KeywordProbe:
        if self.pointer is not None and self.scope == "keyword" and not self.keywords:
            raise ValueError(f"probe {self.id!r} checks nothing")
        if not (
            self.keywords
            or self.through
            or self.under
            or self.expect_values
            or self.defaults
            or self.pointer is not None
        ):
            raise ValueError(f"probe {self.id!r} checks nothing")
        return self

    def changes_keywords(self) -> list[str]:
        """Keywords whose schema changes count as transforming this probe (empty: any, under ``under``)."""
        if self.transform_keywords is not None:
            return self.transform_keywords
        return [] if self.under else self.keywords


class CapabilityProbe(_Strict):
    """A request for one behaviour and what honouring it means."""

    id: str
    capability: str
    """The row label in the capability matrix."""
    requires: str | None = None
    """What the dialect must be able to express: ``tool_choice:<mode>``, ``parallel_control``,
    ``strict_mode`` or ``streaming`` (see :class:`~fcbench.adapters.base.Capabilities`)."""
    tools: list[str]
    prompt: str
    tool_choice: str = "auto"
    parallel_tool_calls: bool | None = None
    strict: bool = False
    expect: Expectation
    expected: dict[str, Any]
    """The case's ``expected`` (for the ordinary grade stored in each record)."""

    def topic(self) -> str | None:
        """The word an adapter note about this probe's request contains (None: no such notes)."""
        if self.requires is None:
            return None
        return _TOPICS.get(self.requires.partition(":")[0])


class ProbeSet(_Strict):
    """Everything in ``probes.json``."""

    version: str
    system: str
    keyword_probes: list[KeywordProbe]
    capability_probes: list[CapabilityProbe]
