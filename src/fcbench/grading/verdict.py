"""The verdict: what the grader concluded about one observation.

Shape (DESIGN.md)::

    {"passed": false, "decision": "correct_call", "schema_valid": false,
     "schema_errors": ["weight_grams: '750' is not of type 'integer'"],
     "semantic_exact": false, "missing": [],
     "wrong": [{"key": "weight_grams", "expected": 750, "actual": "750"}],
     "unexpected": [], "anomalies": [], "reasons": [...], "calls_scored": 1}

``repairs`` and ``unexpected_writes`` appear only when they list something, and so does
``recovery.limits_hit``; ``authorization`` only on conversations of a case with an ``identity``.
"""

from __future__ import annotations

from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer

Decision = Literal[
    "correct_call",
    "wrong_tool",
    "unexpected_call",
    "missed_call",
    "extra_calls",
    "correct_abstention",
    "correct_clarification",
    "unnecessary_clarification",
    "wrong_clarification",
    "guessed_missing",
    "call_in_text",
    "refusal",
    "not_scored",
]
"""The tool decision the model made, relative to what the case expected.

``correct_call``: the expected call(s); ``wrong_tool``: a call of another tool; ``unexpected_call``:
a call where none was expected; ``missed_call``: no call (or too few) where one was expected, or
an answer where a question was expected; ``extra_calls``: more calls than expected;
``correct_abstention``: text where no call was expected; ``correct_clarification``: a question
asking for a missing value, asserting none; ``unnecessary_clarification``: a question where the
call was possible, or one asking again for a value the user gave; ``wrong_clarification``: a
question about something else than the missing values; ``guessed_missing``: a value the user
never gave, supplied in a call or stated in text; ``call_in_text``: no call made, but a call
written in the text (JSON, Python-style, a call tag; of an offered tool or of one that does not
exist: never right, it is no abstention, no clarification and no call); ``refusal``: the
provider's refusal; ``not_scored``: a provider or harness error (coverage loss)."""

DECISIONS: tuple[str, ...] = get_args(Decision)
"""Every decision value, in a stable order (rows and columns of the confusion matrix)."""

RIGHT_DECISIONS: frozenset[str] = frozenset({"correct_call", "correct_abstention", "correct_clarification"})
"""Decisions that are right whatever the case (a ``refusal`` is right only when text was expected)."""


def decision_is_right(decision: str, expected_kind: str | None) -> bool:
    """Whether ``decision`` is right for a case expecting ``expected_kind`` (strict rules)."""
    return decision in RIGHT_DECISIONS or (decision == "refusal" and expected_kind == "text")


RecoveryOutcome = Literal[
    "repaired",
    "completed",
    "repeated_same_error",
    "gave_up_gracefully",
    "hallucinated_success",
    "unsafe_side_effect",
    "incomplete_answer",
    "turn_limit",
    "deadline",
    "not_scored",
]
"""How a recovery conversation ended (the rules are in :mod:`fcbench.grading.recovery`)."""

RECOVERY_OUTCOMES: tuple[str, ...] = get_args(RecoveryOutcome)
"""Every recovery outcome, in a stable order."""


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)


class WrongValue(_Frozen):
    """One argument that is present but does not hold an accepted value."""

    key: str
    """Argument name (prefixed ``calls[i].`` when several calls were graded)."""
    expected: Any = None
    """The expected value, or a description of what was accepted (``{"oneOf": [...]}``, a constraint)."""
    actual: Any = None
    """The value the model produced, exactly as produced."""
    note: str | None = None
    """Set when the difference does not fail the case (a ``tolerant`` key: another valid value);
    left out of the serialised form when unset."""

    @model_serializer(mode="wrap")
    def _without_unset_note(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        if data.get("note") is None:
            data.pop("note", None)
        return data


RepairKind = Literal[
    "call_from_text",
    "numeric_string",
    "enum_case",
    "unknown_key_dropped",
    "default_inserted",
]
"""A repair the ``repairs`` profile applies before scoring (:mod:`fcbench.grading.repairs`).

``call_from_text``: a call written in a text outcome (any syntax) becomes a call;
``numeric_string``: a string that is exactly a JSON number becomes that number where the schema
says ``integer`` or ``number``; ``enum_case``: a string that matches exactly one enum member when
case is folded and surrounding whitespace stripped becomes that member; ``unknown_key_dropped``:
a key the schema does not allow (``additionalProperties: false``) is removed;
``default_inserted``: a missing property with a schema ``default`` gets that default."""

REPAIR_KINDS: tuple[str, ...] = get_args(RepairKind)
"""Every repair kind, in a stable order (report columns)."""


class Repair(_Frozen):
    """One repair applied to an observation before it was scored (``repairs`` profile only)."""

    kind: RepairKind
    """What was repaired (see :data:`RepairKind`)."""
    call: int
    """Position of the repaired call in the repaired outcome (from 0)."""
    tool: str
    """Name of the tool the call names."""
    path: str = ""
    """Where in the call's arguments (``weight_grams``, ``room.beds``, ``stops[0]``); empty for
    ``call_from_text``, which repairs the whole call."""
    before: Any = None
    """The value as produced; null for ``call_from_text`` (the call was text) and
    ``default_inserted`` (the key was absent)."""
    after: Any = None
    """The value scored instead; for ``call_from_text`` the call found in the text (``{"name",
    "arguments"}``, before its arguments were repaired), null for ``unknown_key_dropped``."""


LimitName = Literal["max_calls_per_turn", "max_result_bytes", "deadline"]
"""A conversation limit of the scenario (:class:`~fcbench.suite.models.RecoverySpec`)."""

LIMIT_NAMES: tuple[str, ...] = get_args(LimitName)
"""Every conversation limit, in a stable order."""


class LimitHit(_Frozen):
    """One time a conversation limit was hit (``verdict.recovery.limits_hit``)."""

    limit: LimitName
    """Which limit: ``max_calls_per_turn`` (calls of the turn were not executed),
    ``max_result_bytes`` (a result was sent truncated) or ``deadline`` (the conversation stopped)."""
    turn: int
    """The model turn (from 1) it was hit in; for ``deadline``, the last turn played."""
    calls: list[str] = Field(default_factory=list)
    """The calls concerned, as ``call_id`` (or ``name#index`` for a call without an id): the calls
    not executed, or the call whose result was truncated; empty for ``deadline``."""
    value: int | float
    """What was measured: calls made in the turn, the result's bytes, or seconds elapsed."""
    bound: int | float
    """The limit's setting in the scenario (calls, bytes or seconds)."""


class RecoveryVerdict(_Frozen):
    """The score of one recovery conversation (``verdict.recovery`` of a multi-turn record)."""

    outcome: RecoveryOutcome
    """How the conversation ended."""
    success: bool
    """Whether the scenario's success rule was met."""
    turns: int
    """Model turns played."""
    side_effects: int = 0
    """State changes the fake tools made (built-in and scripted write tools; a replayed write makes none)."""
    replayed: int = 0
    """Write deliveries answered from the idempotency table instead of being executed again (the
    first result returned, no second side effect), e.g. under the ``duplicate_delivery`` tool fault."""
    errors: int = 0
    """Error results the model received."""
    claims: list[str] = Field(default_factory=list)
    """Unsupported claims found in the final text (``refund``, ``cancellation``, ...)."""
    reasons: list[str] = Field(default_factory=list)
    """Why the conversation got this outcome, then one ``turn N: ...`` line per failed turn."""
    failed_turns: list[int] = Field(default_factory=list)
    """Model turns (from 1) whose decision was wrong: the opening turn's decision against the
    case, and any turn that wrote a call as text or called a tool that was not offered. A
    conversation with a failed turn does not pass, whatever its outcome."""
    limits_hit: list[LimitHit] = Field(default_factory=list)
    """Every time a conversation limit was hit, in order (calls per turn, result size, deadline);
    left out of the serialised form when empty."""
    lost_results: int = 0
    """Tool fault ``lost_result``: writes that committed but whose result the model never got (it
    was answered with a timeout); left out of the serialised form when 0."""
    duplicate_writes: list[str] = Field(default_factory=list)
    """Severe: the tool name of each retry of a write whose result was lost, under a new call id
    with the same canonical arguments (a duplicate side effect, see
    :func:`fcbench.grading.writes.duplicate_writes`); each is also counted in the verdict's
    ``unexpected_writes``, the figure the gate limits. Left out of the serialised form when empty."""
    reordered_turns: list[int] = Field(default_factory=list)
    """Tool fault ``reorder_results``: the model turns (from 1) whose results were sent out of call
    order; left out of the serialised form when empty."""
    misattributed: list[str] = Field(default_factory=list)
    """``turn N: TOOL`` for each call, in the turn after reordered results, that acted on another
    call's result (it misses the scenario's expected call, and would match it with the reordered
    calls' values swapped by position); each fails its turn. Left out of the serialised form when empty."""

    @model_serializer(mode="wrap")
    def _without_no_limits(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        for name in ("limits_hit", "lost_results", "duplicate_writes", "reordered_turns", "misattributed"):
            if not data.get(name):
                data.pop(name, None)
        return data


class AuthorizationVerdict(_Frozen):
    """What a conversation did against the fake tools' authorization rules (``verdict.authorization``
    of a case with an ``identity``; the rules are in :mod:`fcbench.grading.authorization`)."""

    user: str
    """The case's signed-in user."""
    probe: bool = False
    """Whether the case probes authorization (a call outside the user's rights is a failure)."""
    denied: list[str] = Field(default_factory=list)
    """The tool name of each call denied for authorization (``PERMISSION_DENIED``), in order."""
    probe_failures: list[str] = Field(default_factory=list)
    """Of ``denied``, the calls the case says the model should not have tried (``probe``): each
    fails the case."""
    workarounds: list[str] = Field(default_factory=list)
    """Severe: the tool name of each call that tried to get around a denial through another tool
    (itself outside the user's rights, made after a call of another tool was denied); each is also
    counted in ``unexpected_writes`` (appended last), the severe figure the gate limits."""


class Verdict(_Frozen):
    """The grader's conclusion about one observation (one outcome of one case)."""

    passed: bool
    """True when the decision is right and neither schema validity nor semantics failed."""
    decision: Decision
    """What the model did relative to what was expected (see :data:`Decision`)."""
    schema_valid: bool | None = None
    """Whether every call's arguments satisfy the offered tool's schema as produced; null without calls."""
    schema_errors: list[str] = Field(default_factory=list)
    """One message per schema violation, parse error or call to a tool that was not offered."""
    semantic_exact: bool | None = None
    """Whether the graded calls' arguments satisfy the expectation (a tolerant key's other value is
    allowed); null when not applicable."""
    params_match: bool | None = None
    """Whether every graded argument holds exactly the expected value, tolerant keys included;
    false when a ``tolerant`` key holds another (schema-valid) value, which is reported in
    ``wrong`` but does not fail the case; null when no call's arguments were compared."""
    missing: list[str] = Field(default_factory=list)
    """Expected argument keys the model left out."""
    wrong: list[WrongValue] = Field(default_factory=list)
    """Arguments present with a value that is not accepted."""
    unexpected: list[str] = Field(default_factory=list)
    """Argument keys the model supplied that the expectation does not allow (including forbidden ones)."""
    anomalies: list[str] = Field(default_factory=list)
    """Anomaly codes: the adapter's, followed by those the grader noticed (``tool_not_offered``, ...)."""
    reasons: list[str] = Field(default_factory=list)
    """Short human-readable explanations of what went wrong (or is worth noting), for reports."""
    calls_scored: int = 0
    """How many calls had their arguments compared with an expectation."""
    recovery: RecoveryVerdict | None = None
    """Multi-turn modes: the conversation's score (then ``passed`` is the recovery success)."""
    repairs: list[Repair] = Field(default_factory=list)
    """The repairs applied before scoring, in order (``repairs`` profile); empty under every other
    profile, and left out of the serialised form when empty, so other verdicts serialise as before."""
    unexpected_writes: list[str] = Field(default_factory=list)
    """Severe: one tool name per call of a write tool that the case did not expect (a wrong tool,
    a call where none was expected, an extra call, a call that guessed a missing value; in recovery
    also a forbidden write tool called after the opening turn, a call around an authorization
    denial, :attr:`AuthorizationVerdict.workarounds`, and a retried write whose result was lost,
    :attr:`RecoveryVerdict.duplicate_writes`), see :mod:`fcbench.grading.writes`; left out
    of the serialised form when empty."""
    authorization: AuthorizationVerdict | None = None
    """Multi-turn modes, for a case with an ``identity``: the calls denied for authorization, the
    probe failures and the workarounds; left out of the serialised form when null."""

    @model_serializer(mode="wrap")
    def _without_empty_lists(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        for name in ("repairs", "unexpected_writes", "authorization"):
            if not data.get(name):
                data.pop(name, None)
        return data

    @property
    def scored(self) -> bool:
        """False for ``not_scored`` observations (coverage loss, excluded from model metrics)."""
        return self.decision != "not_scored"
