"""Result models of the metrics: every rate carries its numerator and denominator."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, computed_field

METRICS_VERSION = "1"


class Rate(BaseModel):
    """A proportion with its numerator and denominator; ``rate`` is null when ``d`` is 0."""

    model_config = ConfigDict(frozen=True)

    n: int = 0
    """Numerator: observations that met the criterion."""
    d: int = 0
    """Denominator: observations the criterion applies to."""

    @computed_field  # type: ignore[prop-decorator]
    @property
    def rate(self) -> float | None:
        """``n / d``, or null when nothing was measured."""
        return self.n / self.d if self.d else None


class Stability(BaseModel):
    """How often repeats of a case gave the same normalised outcome."""

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


class Latency(BaseModel):
    """Latency percentiles over accepted observations (milliseconds)."""

    p50: float | None = None
    p95: float | None = None
    count: int = 0
    """Accepted observations with a recorded latency."""


class Tokens(BaseModel):
    """Token totals as reported by the provider."""

    input: int = 0
    output: int = 0
    unreported: int = 0
    """Accepted observations whose usage was not reported (not included in the totals)."""


class TargetMetrics(BaseModel):
    """Every metric of one target in one mode."""

    target: str
    """``endpoint:model``."""
    endpoint: str
    dialect: str
    model: str
    mode: str
    planned: int
    observed: int
    """Observations recorded (after de-duplication)."""
    scorable: int
    """Observations that produced a gradable model outcome."""
    accepted: Rate
    """Observations the provider accepted (not a provider error) out of ``observed``."""
    provider_errors: dict[str, int]
    """Unscorable observations by error code (coverage loss, never model failures)."""
    selection_accuracy: Rate
    schema_valid: Rate
    semantic_exact: Rate
    clarification_accuracy: Rate
    abstention_accuracy: Rate
    recovery_success: Rate
    recovery_outcomes: dict[str, int]
    pass_rate: Rate
    stability: Stability
    pass_hat_k: dict[int, float]
    pass_hat_k_cases: dict[int, int]
    """For each k, the number of cases that had at least k scorable repeats."""
    coverage: Rate
    """Scorable observations out of ``planned``."""
    by_category: dict[str, Rate]
    by_tag: dict[str, Rate]
    confusion: dict[str, dict[str, int]]
    """Expected kind -> decision -> count, over scorable observations."""
    decisions: dict[str, int]
    latency_ms: Latency
    tokens: Tokens
    cost_usd: float | None
    """Total cost; null when any accepted observation has an unknown cost."""
    cost_per_pass: float | None
    duplicates: int = 0


class CaseSummary(BaseModel):
    """One case for one target and mode, over its repeats."""

    target: str
    mode: str
    case_id: str
    category: str
    tags: list[str]
    expected_kind: str
    prompt: str
    passed: Rate
    """Passing repeats out of scorable repeats."""
    errors: int
    """Repeats lost to provider or harness errors."""
    decisions: dict[str, int]
    reasons: dict[str, int]
    """Failure reasons seen in failing repeats, with counts."""
    stability: Rate
    distinct_outcomes: int


class RunInfo(BaseModel):
    """What the manifest says about the run."""

    run_id: str
    suite: str
    dataset_version: str
    dataset_hash: str
    fcbench_version: str
    started_at: str
    finished_at: str | None
    repeats: int
    modes: list[str]
    planned: int


class RunMetrics(BaseModel):
    """All metrics of one run: per target and mode, plus per case x target summaries."""

    metrics_version: str = METRICS_VERSION
    run: RunInfo
    records_read: int
    targets: list[TargetMetrics] = Field(default_factory=list)
    cases: list[CaseSummary] = Field(default_factory=list)

    def to_json(self, indent: int | None = 2) -> str:
        """Serialise to JSON (the ``fcbench report --format json`` output)."""
        return self.model_dump_json(indent=indent)

    @classmethod
    def from_json(cls, text: str) -> RunMetrics:
        """Parse what :meth:`to_json` produced."""
        return cls.model_validate_json(text)

    def find(self, target: str, mode: str) -> TargetMetrics | None:
        """The metrics of one target label and mode, if present."""
        return next((t for t in self.targets if t.target == target and t.mode == mode), None)
