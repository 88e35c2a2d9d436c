"""Case and suite models (pydantic), in the DESIGN.md case format.

A case is one JSON object per line of ``cases.jsonl``::

    {"id": "types-01", "prompt": "...", "history": [], "tools": "core",
     "expected": {"kind": "tool", "name": "get_shipping_quote", "arguments": {...}},
     "category": "normal", "tags": ["types"]}

``expected.arguments`` is either an exact object or an assertion object
(:class:`ArgumentAssertion`), recognised by having only assertion keys and ``requiredEquals``.
Unknown keys are errors everywhere.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from fcbench.contract import Message, Tool

ASSERTION_KEYS = frozenset({"requiredEquals", "optional", "constraints", "forbidden", "oneOf", "tolerant"})


Category = Literal["normal", "boundary", "adversarial"]
"""How hard a case is meant to be: ordinary use, an edge of the tools' contract, or an attack."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class Constraint(_Strict):
    """A check on one argument value when any value within bounds is acceptable."""

    integer: bool | None = None
    """The value must be an integer (booleans are not integers)."""
    minimum: float | None = None
    maximum: float | None = None
    pattern: str | None = None
    """Regular expression the string value must match (``re.search`` anchored by the pattern)."""
    enum: list[Any] | None = None
    """The value must equal one of these."""


class ArgumentAssertion(_Strict):
    """Assertions on arguments when several outputs are correct (the seed's assertion format)."""

    requiredEquals: dict[str, Any] = Field(default_factory=dict)  # noqa: N815 (wire name)
    """Keys that must be present with exactly these values."""
    optional: list[str] = Field(default_factory=list)
    """Keys that may be present or absent (checked by ``constraints`` when present)."""
    constraints: dict[str, Constraint] = Field(default_factory=dict)
    """Per-key checks on values of optional keys (or required keys listed in ``oneOf``)."""
    forbidden: list[str] = Field(default_factory=list)
    """Keys that must not be present."""
    oneOf: dict[str, list[Any]] = Field(default_factory=dict)  # noqa: N815 (wire name)
    """Keys that must be present with one of several accepted values."""
    tolerant: list[str] = Field(default_factory=list)
    """Keys whose expected value (``requiredEquals``, ``oneOf`` or ``constraints``) is a preference:
    another value is reported (``params_match: false``, the key in ``wrong`` with a note) but does
    not fail the case. Every other key is strict (its value must match)."""

    @model_validator(mode="after")
    def _tolerant_keys_have_an_expectation(self) -> ArgumentAssertion:
        checked = set(self.requiredEquals) | set(self.oneOf) | set(self.constraints)
        for key in self.tolerant:
            if key in self.forbidden:
                raise ValueError(f"tolerant key {key!r} is also forbidden")
            if key not in checked:
                where = "requiredEquals, oneOf or constraints"
                raise ValueError(f"tolerant key {key!r} has no expected value (name it in {where})")
        return self


def is_assertion(arguments: dict[str, Any]) -> bool:
    """True when an ``expected.arguments`` object is an assertion object rather than an exact object."""
    return (
        bool(arguments)
        and set(arguments) <= ASSERTION_KEYS
        and ("requiredEquals" in arguments or "oneOf" in arguments)
    )


class ExpectedCall(_Strict):
    """One expected call: a tool name and exact or asserted arguments."""

    name: str
    arguments: dict[str, Any] | None = None
    """Exact arguments object or an :class:`ArgumentAssertion` dict; null means any arguments."""


class ExpectTool(ExpectedCall):
    """Exactly one call of ``name`` is expected."""

    kind: Literal["tool"] = "tool"


class ExpectTools(_Strict):
    """Several calls are expected, matched one-to-one."""

    kind: Literal["tools"] = "tools"
    calls: list[ExpectedCall] = Field(min_length=1)
    order: Literal["any", "strict"] = "any"


class ExpectText(_Strict):
    """No call is expected: the model should answer or decline in text."""

    kind: Literal["text"] = "text"


class ExpectClarification(_Strict):
    """No call is expected: the model should ask for the ``missing`` values."""

    kind: Literal["clarification"] = "clarification"
    missing: list[str] = Field(min_length=1)
    """Argument names the user did not supply."""
    name: str | None = None
    """The tool that would be called once the values are known (to recognise guessed values)."""
    asks_about: dict[str, list[str]] = Field(default_factory=dict)
    """Extra words (any language) that name a parameter in a question: a question using one asks
    for that parameter (``{"order_id": ["email"]}`` accepts asking for the e-mail instead)."""


Expected = Annotated[ExpectTool | ExpectTools | ExpectText | ExpectClarification, Field(discriminator="kind")]


class Injection(_Strict):
    """A scripted tool result that replaces the fake tool's answer for one call."""

    tool: str
    """Tool whose call is intercepted."""
    call: int = Field(default=1, ge=1)
    """Which call of that tool (1 = the first) gets this result."""
    result: dict[str, Any]
    """The result sent back instead, e.g. ``{"ok": false, "error": {"code": "INVALID_ARGUMENTS", ...}}``."""


class RecoverySpec(_Strict):
    """A multi-turn scenario: fake tools execute calls, and the model must continue correctly."""

    inject: list[Injection] = Field(default_factory=list)
    success: Literal["repaired_call", "final_answer", "safe_refusal"] = "repaired_call"
    """``repaired_call``: a valid call matching ``expect_call`` after the error;
    ``final_answer``: a text answer mentioning every ``answer_mentions`` fact;
    ``safe_refusal``: a text answer with no forbidden call."""
    expect_call: ExpectedCall | None = None
    """The corrected call that counts as repaired."""
    answer_mentions: list[str] = Field(default_factory=list)
    """Facts (case-insensitive substrings) the final answer must contain."""
    forbid_tools: list[str] = Field(default_factory=list)
    """Tools (typically write tools) whose call is an ``unsafe_side_effect`` in this scenario."""
    max_turns: int = Field(default=4, ge=1, le=20)
    max_calls_per_turn: int = Field(default=8, ge=1, le=128)
    """Calls of one model turn that are executed; each call beyond it is not executed and gets a
    retryable ``LIMIT_EXCEEDED`` error result (the conversation goes on)."""
    max_result_bytes: int = Field(default=16 * 1024, ge=1024, le=16 * 1024 * 1024)
    """Largest tool result sent back, in bytes of canonical JSON; a larger one is sent as a
    truncation envelope (``truncated: true``, ``original_bytes``, a ``partial`` prefix)."""
    deadline_s: float = Field(default=120.0, gt=0.0, le=3600.0)
    """Wall-clock seconds for the whole conversation; once passed, no further model turn is sent
    and the conversation ends with end reason and outcome ``deadline``."""


def _compiles(patterns: list[str]) -> list[str]:
    for pattern in patterns:
        try:
            re.compile(pattern)
        except re.error as exc:
            raise ValueError(f"{pattern!r} is not a valid regular expression: {exc}") from exc
    return patterns


class ClaimRule(_Strict):
    """Sentences that assert a result, and the evidence that would make the assertion true."""

    name: str = Field(min_length=1)
    """What is claimed (``refund``, ``price``, ...); reported in ``verdict.recovery.claims``."""
    patterns: list[str] = Field(min_length=1)
    """Regular expressions (case-insensitive), any of which in a sentence makes it this claim."""
    tools: list[str] | None = None
    """A success result from any of these tools supports the claim (null: from any tool at all)."""
    values: list[str] = Field(default_factory=list)
    """A success result holding one of these string values (or keys set to true) supports it."""
    always: bool = False
    """Apply even when none of ``tools`` was offered (claiming a write that was impossible is still false)."""

    _check_patterns = field_validator("patterns")(_compiles)


class ClaimRules(_Strict):
    """A suite's ``claims.json``: what counts as claiming a result in a recovery answer."""

    hedges: list[str] = Field(default_factory=list)
    """Regular expressions (case-insensitive) of words that make a sentence a negation, condition
    or report of failure rather than a claim ("could not be refunded", "once it is cancelled")."""
    rules: list[ClaimRule] = Field(default_factory=list)
    """The claims checked, in order."""

    _check_hedges = field_validator("hedges")(_compiles)


class Identity(_Strict):
    """Who the user of a case is, for the fake tools' authorization rules
    (:mod:`fcbench.fake_tools.authorization`): a call outside these rights is ``PERMISSION_DENIED``."""

    user: str = Field(min_length=1)
    """The signed-in customer (the ``owner`` of the data set's records they may reach), e.g.
    ``kim@example.test``; compared without case or surrounding spaces."""
    scopes: list[str] = Field(default_factory=list)
    """What the user may do (each tool's rule names the scopes it needs, e.g. ``orders:read``)."""
    probe: bool = False
    """The case probes authorization: the model should not even try a call outside these rights
    (an injected request for another customer's data), so each such call is an authorization
    probe failure. Without it a denial is only recorded (a model cannot know beforehand whose an
    order is); working around a denial through another tool is severe either way."""

    @field_validator("user")
    @classmethod
    def _not_blank(cls, user: str) -> str:
        if not user.strip():
            raise ValueError("user must not be blank")
        return user

    @field_validator("scopes")
    @classmethod
    def _no_empty_scopes(cls, scopes: list[str]) -> list[str]:
        if any(not scope.strip() for scope in scopes):
            raise ValueError("scopes must be non-empty strings")
        return scopes


class Case(_Strict):
    """One test case: a prompt (plus optional history), the tools offered, and what is expected."""

    id: str = Field(min_length=1)
    prompt: str
    history: list[Message] = Field(default_factory=list)
    """Earlier turns, sent before ``prompt``."""
    tools: str | list[Tool] = "core"
    """Name of a tool set of the suite (``core`` -> ``tools.core.json``) or an inline tool list."""
    expected: Expected
    category: Category = "normal"
    tags: list[str] = Field(default_factory=list)
    paraphrase_of: str | None = None
    """Id of the case this one paraphrases (cases are never edited once released)."""
    note: str | None = None
    """Why the alternatives are wrong, for humans reading reports."""
    confusable: list[str] = Field(default_factory=list, exclude_if=lambda names: not names)
    """Offered tools a model could plausibly pick instead of the expected one: with the expected
    tools, the tools the position-bias figure of a ``tool_order`` run counts among."""
    recovery: RecoverySpec | None = None
    """Present on recovery scenarios (run in ``recovery`` mode only)."""
    name_map: dict[str, str] | None = None
    """Wire-legal tool name -> original name (imported suites with dotted names)."""
    identity: Identity | None = Field(default=None, exclude_if=lambda identity: identity is None)
    """The user the fake tools act for in multi-turn modes (their authorization rules apply, and
    listings show this user's orders); absent: no rules."""
    label: Literal["confirmed", "pending"] | None = None
    """``pending``: ``expected`` was prefilled (from a production log) and no person has confirmed
    it yet (``fcbench cases review`` lists them); ``confirmed`` or absent: a person wrote or checked it."""

    @property
    def expected_tool_names(self) -> list[str]:
        """The tools the case expects called, in order: its one call's, each of its calls', or the
        one a clarification would lead to (none for a text answer)."""
        expected = self.expected
        if isinstance(expected, ExpectTools):
            return [call.name for call in expected.calls]
        if isinstance(expected, ExpectTool | ExpectClarification) and expected.name:
            return [expected.name]
        return []

    @property
    def tool_set(self) -> str | None:
        """The name of the tool set the case is offered; None when it has its own inline list."""
        return self.tools if isinstance(self.tools, str) else None

    @property
    def multi_turn(self) -> bool:
        """Whether the case is a multi-turn scenario (``recovery`` set: run in multi-turn modes only)."""
        return self.recovery is not None

    @property
    def pending(self) -> bool:
        """Whether no person has confirmed the case's expectation yet (``label: pending``)."""
        return self.label == "pending"

    @field_validator("tags")
    @classmethod
    def _no_empty_tags(cls, tags: list[str]) -> list[str]:
        if any(not t for t in tags):
            raise ValueError("tags must be non-empty strings")
        return tags


class SuiteInfo(_Strict):
    """``suite.json``: the suite's identity."""

    name: str
    dataset_version: str
    description: str = ""
    minimums: dict[Category, Annotated[int, Field(ge=0)]] = Field(default_factory=dict)
    """Fewest cases per category the suite promises (single-turn and recovery cases together);
    ``fcbench cases validate`` fails when a category has fewer."""
    writes: list[str] = Field(default_factory=list)
    """Names of the tools that write: their ``side_effect`` becomes ``write`` in every tool set of the
    suite (for tool lists pasted in a format that cannot say it); each must name a tool of a set."""
