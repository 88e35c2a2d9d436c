"""Result models of the metrics: every rate carries its numerator and denominator."""

from __future__ import annotations

import functools

from pydantic import BaseModel, ConfigDict, Field, computed_field

from fcbench.metrics.stats import wilson_interval

METRICS_VERSION = "1"


class Rate(BaseModel):
    """A proportion with its numerator and denominator; ``rate``, ``low``, ``high`` are null when ``d`` is 0.

    ``low`` and ``high`` are computed, like ``rate``, so metrics JSON written before they existed
    reads back unchanged.
    """

    model_config = ConfigDict(frozen=True, use_attribute_docstrings=True)

    n: int = 0
    """Numerator: observations that met the criterion."""
    d: int = 0
    """Denominator: observations the criterion applies to."""

    @computed_field  # type: ignore[prop-decorator]
    @property
    def rate(self) -> float | None:
        """``n / d``, or null when nothing was measured."""
        return self.n / self.d if self.d else None

    @computed_field  # type: ignore[prop-decorator]
    @property
    def low(self) -> float | None:
        """Lower bound of the Wilson score 95% interval of ``n / d``; null when ``d`` is 0."""
        interval = self._interval()
        return None if interval is None else interval[0]

    @computed_field  # type: ignore[prop-decorator]
    @property
    def high(self) -> float | None:
        """Upper bound of the Wilson score 95% interval of ``n / d``; null when ``d`` is 0."""
        interval = self._interval()
        return None if interval is None else interval[1]

    def _interval(self) -> tuple[float, float] | None:
        if not 0 <= self.n <= self.d:
            return None
        return _wilson(self.n, self.d)


@functools.lru_cache(maxsize=65536)
def _wilson(n: int, d: int) -> tuple[float, float] | None:
    """:func:`wilson_interval`, once per (n, d): every case's rates are serialised with their interval."""
    return wilson_interval(n, d)


class Stability(BaseModel):
    """How often repeats of a case gave the same normalised outcome."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    mean: float | None = None
    """Mean over cases (with at least one scorable repeat) of the per-case stability."""
    n: int = 0
    """Sum over cases of the count of the most common outcome."""
    d: int = 0
    """Sum over cases of the scorable repeats."""
    cases: int = 0
    """Cases with at least one scorable repeat."""
    unstable_cases: int = 0
    """Cases whose repeats produced more than one distinct outcome."""

    @property
    def as_rate(self) -> Rate:
        """``n / d`` as a :class:`Rate` (repeats that agreed with their case's most common outcome)."""
        return Rate(n=self.n, d=self.d)


class Latency(BaseModel):
    """Latency percentiles over accepted observations (milliseconds)."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    p50: float | None = None
    """Median latency (linear interpolation between closest ranks); null when there is none."""
    p95: float | None = None
    """95th percentile latency (same interpolation); null when there is none."""
    count: int = 0
    """Accepted observations with a recorded latency."""


class Tokens(BaseModel):
    """Token totals as reported by the provider."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    input: int = 0
    """Input tokens summed over every record that reported them (duplicates and provider errors included)."""
    output: int = 0
    """Output tokens summed over every record that reported them (duplicates and provider errors included)."""
    unreported: int = 0
    """Accepted observations that reported no input or no output token count (what they did report
    is in the totals)."""
    cache_read: int = 0
    """The part of ``input`` read from a prompt cache, summed over every record that reported it."""
    cache_write: int = 0
    """The part of ``input`` written to a prompt cache, summed over every record that reported it."""


class ArgumentDrift(BaseModel):
    """How one argument of one tool varied over a case's repeats."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    distinct: int
    """Distinct values (compared as canonical JSON, so ``750`` and ``750.0`` are one value; a repeat
    whose call omits the argument counts as the value "absent")."""
    top: Rate
    """Repeats with the most common value, out of the scorable repeats that called the tool."""
    capped: bool = False
    """More distinct values were seen than are tracked (``MAX_DRIFT_VALUES``): ``distinct`` is a
    lower bound and ``top`` counts only the tracked values."""


class ParityDifference(BaseModel):
    """A case whose streamed and non-streamed outcomes differ in at least one repeat."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    case_id: str
    """The case's id in the suite."""
    differing: Rate
    """Repeats whose outcome keys differ, out of the repeats scored in both modes."""
    repeats: list[int]
    """The differing repeats, in order."""
    selection: list[str]
    """The ``selection`` decision of each differing repeat (same order as ``repeats``)."""
    stream: list[str]
    """The ``stream`` decision of each differing repeat (same order as ``repeats``)."""


class TargetMetrics(BaseModel):
    """Every metric of one target in one mode."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    target: str
    """``endpoint:model``."""
    name: str = ""
    """The config's name for this target (``prod``), else its label; ``fcbench compare`` pairs by it."""
    endpoint: str
    """Endpoint name (built-in or from the config's ``endpoints``)."""
    dialect: str
    """Wire dialect the endpoint speaks."""
    model: str
    """Model id exactly as sent to the provider."""
    mode: str
    """Mode name (see :data:`fcbench.contract.MODES`)."""
    planned: int
    """Observations planned for this target and mode (manifest ``planned_by``, else ``planned`` split
    evenly over targets x modes; 0 when not in the manifest), and never less than ``observed``."""
    observed: int
    """Observations recorded (after de-duplication)."""
    scorable: int
    """Observations that produced a gradable model outcome."""
    accepted: Rate
    """Observations the provider accepted (not a provider error) out of ``observed``."""
    provider_errors: dict[str, int]
    """Unscorable observations by error code (coverage loss, never model failures)."""
    provider_error_examples: dict[str, str] = Field(default_factory=dict)
    """Error code -> one example message of it (as recorded, so already redacted), cut to 300 characters."""
    selection_accuracy: Rate
    """Right decisions (``correct_call``, ``correct_abstention``, ``correct_clarification``) out of
    scorable observations whose case expects a tool, tools, text or a clarification."""
    schema_valid: Rate
    """Observations whose calls all satisfy the offered tools' schemas, out of scorable observations
    whose outcome is tool calls."""
    semantic_exact: Rate
    """Observations whose graded call arguments match the expectation, out of scorable ``correct_call``
    observations."""
    params_match: Rate = Field(default_factory=Rate)
    """Exact-argument rate: ``correct_call`` observations whose every argument value matched exactly,
    tolerant keys included (``verdict.params_match``), out of those whose verdict says; beside the
    pass rate it shows what tolerant keys forgave."""
    clarification_accuracy: Rate
    """Right decisions out of scorable observations whose case expects a clarification."""
    abstention_accuracy: Rate
    """Right decisions (``correct_abstention``; a ``refusal`` is not counted) out of scorable
    observations whose case expects text."""
    recovery_success: Rate
    """Conversations that met their success rule, out of scorable observations whose verdict carries
    a ``recovery`` block (multi-turn modes)."""
    recovery_outcomes: dict[str, int]
    """Scorable observations with a ``recovery`` block, by how the conversation ended (recovery outcome)."""
    pass_rate: Rate
    """Passing observations out of ``scorable``."""
    stability: Stability
    """Agreement of each case's scorable repeats with the case's most common normalised outcome."""
    pass_hat_k: dict[int, float]
    """For each k, ``C(c, k) / C(n, k)`` (n scorable repeats, c passes), averaged over the cases
    with n >= k."""
    pass_hat_k_cases: dict[int, int]
    """For each k, the number of cases that had at least k scorable repeats."""
    coverage: Rate
    """Scorable observations out of ``planned``."""
    by_category: dict[str, Rate]
    """Per case category: passing out of scorable observations (only categories with a scorable one)."""
    by_tag: dict[str, Rate]
    """Per tag: passing out of scorable observations of the cases that carry the tag."""
    confusion: dict[str, dict[str, int]]
    """Expected kind -> decision -> count, over scorable observations."""
    decisions: dict[str, int]
    """Scorable observations by verdict decision (the column totals of ``confusion``)."""
    latency_ms: Latency
    """Latency percentiles of accepted observations, in milliseconds."""
    tokens: Tokens
    """Token totals over every record of this target and mode, duplicates and provider errors included."""
    cost_usd: float | None
    """Total cost, the exact sum of the records' costs rounded once (so it does not depend on their
    order); null when any accepted observation has an unknown cost."""
    cost_per_pass: float | None
    """``cost_usd`` divided by the passing observations; null when the cost is unknown or nothing passed."""
    duplicates: int = 0
    """Records ignored because their (case, repeat) was already observed; a record that replaces an
    earlier provider or harness error is not counted."""
    cached: int = 0
    """Observations answered from the response cache (``fcbench run --cache``): counted in the
    rates, left out of stability, pass^k, latency, tokens and cost (they would only repeat them)."""
    anomalies: dict[str, int] = Field(default_factory=dict)
    """Anomaly code -> accepted observations carrying it (the record's and the verdict's anomalies,
    each code once per observation); codes are explained by :data:`fcbench.contract.ANOMALY_CODES`."""
    with_anomalies: Rate = Field(default_factory=Rate)
    """Accepted observations with at least one anomaly, out of accepted observations."""
    drifting_cases: int = 0
    """Cases with at least one argument whose value varied over the scorable repeats (see
    :attr:`CaseSummary.drift`)."""
    stream_parity: Rate | None = None
    """On the ``stream`` entry of a target whose ``selection`` and ``stream`` modes are both reported:
    (case, repeat) pairs with the same normalised outcome key in both modes, out of the pairs scored
    in both; null otherwise."""
    stream_parity_differences: list[ParityDifference] = Field(default_factory=list)
    """The cases counted in ``stream_parity`` whose outcomes differ in at least one repeat, by case id."""
    repairs: dict[str, int] = Field(default_factory=dict)
    """Repair kind -> repairs applied before scoring, over the scorable observations (profiles that
    repair, such as ``repairs``; see :data:`fcbench.grading.verdict.RepairKind`); empty otherwise."""
    repaired: Rate | None = None
    """Scorable observations that needed at least one repair, out of scorable observations; null
    unless the metrics were computed with a profile that repairs (``repairs``). Multi-turn modes
    keep their own verdicts and are never repaired."""
    unexpected_writes: Rate = Field(default_factory=Rate)
    """Severe: scorable observations with at least one call of a write tool the case did not expect
    (``verdict.unexpected_writes``: a wrong, extra or unasked-for call that would have changed
    state, worse than an unexpected read), out of scorable observations."""
    unexpected_write_calls: int = 0
    """Calls of write tools the case did not expect, over the scorable observations."""
    side_effects: int = 0
    """State changes the fake tools made, summed over the scorable multi-turn conversations
    (``verdict.recovery.side_effects``)."""
    replayed_writes: int = 0
    """Write deliveries the fake tools answered from their idempotency table instead of executing
    them again (``verdict.recovery.replayed``), over the scorable conversations."""
    authorization_probe_failures: Rate = Field(default_factory=Rate)
    """Scorable conversations that made at least one call outside the signed-in user's rights
    where the case says the model should not have tried (``verdict.authorization.probe_failures``),
    out of the scorable conversations of cases that probe authorization (``identity.probe``)."""
    authorization_workarounds: int = 0
    """Severe: calls that tried to get around an authorization denial through another tool
    (``verdict.authorization.workarounds``; each is also one of ``unexpected_write_calls``), over
    the scorable conversations."""
    limit_hits: dict[str, int] = Field(default_factory=dict)
    """Conversation limit (``max_calls_per_turn``, ``max_result_bytes``, ``deadline``) -> times it
    was hit (``verdict.recovery.limits_hit``), over the scorable multi-turn conversations; only
    limits hit at least once are listed."""


class CaseSummary(BaseModel):
    """One case for one target and mode, over its repeats."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    target: str
    """Target label, ``endpoint:model``."""
    mode: str
    """Mode name."""
    case_id: str
    """The case's id in the suite."""
    category: str
    """The case's category (``normal``, ``boundary`` or ``adversarial``)."""
    tags: list[str]
    """The case's tags."""
    expected_kind: str
    """What the case expects: ``tool``, ``tools``, ``text`` or ``clarification``."""
    prompt: str
    """The user prompt, cut to its first 600 characters."""
    passed: Rate
    """Passing repeats out of scorable repeats."""
    errors: int
    """Repeats lost to provider or harness errors."""
    decisions: dict[str, int]
    """Scorable repeats by verdict decision."""
    reasons: dict[str, int]
    """Failure reasons seen in failing repeats, with counts."""
    stability: Rate
    """Scorable repeats that produced the most common normalised outcome, out of scorable repeats."""
    distinct_outcomes: int
    """Distinct normalised outcomes among the scorable repeats."""
    anomalies: dict[str, int] = Field(default_factory=dict)
    """Anomaly code -> accepted repeats carrying it (each code once per repeat)."""
    drift: dict[str, ArgumentDrift] = Field(default_factory=dict)
    """``tool.argument`` -> how its value varied over the scorable repeats with tool calls; only
    arguments with more than one distinct value."""


class RunInfo(BaseModel):
    """What the manifest says about the run."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    run_id: str
    """The run's id, ``YYYYmmdd-HHMMSS-xxxxxx``."""
    suite: str
    """Suite name."""
    dataset_version: str
    """The suite's dataset version."""
    dataset_hash: str
    """Hash of the suite's tools, system prompt and cases."""
    fcbench_version: str
    """The fcbench version that started the run."""
    started_at: str
    """UTC start time of the run, ISO 8601."""
    finished_at: str | None
    """UTC time every planned observation was recorded, ISO 8601; null while the run is incomplete."""
    repeats: int
    """Repeats per case and mode."""
    modes: list[str]
    """Modes reported: the manifest's modes in plan order, restricted to those requested."""
    planned: int
    """Observations the manifest plans over all its targets and modes (of this shard, when sharded)."""
