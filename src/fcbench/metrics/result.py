"""The result of one metrics pass: a run's metrics per target and mode, and its case summaries.

It sits above :mod:`fcbench.metrics.models` (the parts) and :mod:`fcbench.metrics.cases` (the
compact case summaries), so neither imports it back.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from fcbench.metrics.cases import CaseSummaries
from fcbench.metrics.judge import JudgeAgreement
from fcbench.metrics.models import METRICS_VERSION, RunInfo, TargetMetrics
from fcbench.metrics.tool_order import ToolOrderMetrics


class RunMetrics(BaseModel):
    """All metrics of one run: per target and mode, plus per case x target summaries."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    metrics_version: str = METRICS_VERSION
    """Version of this metrics format."""
    run: RunInfo
    """What the manifest says about the run."""
    records_read: int
    """Records read from ``records.jsonl``, duplicates and records of unrequested modes included
    (a torn or corrupt line is skipped, not counted)."""
    damaged_lines: int = 0
    """Lines of ``records.jsonl`` skipped as damaged: complete lines that are not JSON and a torn
    last line (a write cut by a kill, until a resume drops it). The observations they held are
    missing: coverage loss, and a gate failure while any planned observation is missing."""
    targets: list[TargetMetrics] = Field(default_factory=list)
    """One entry per target x mode: the manifest's targets x reported modes in order (observed or
    not), then any target or mode found only in the records."""
    cases: CaseSummaries = Field(default_factory=CaseSummaries)
    """One summary per case x target x mode, in the order of ``targets``, then by case id (a
    sequence of :class:`CaseSummary`, kept compact: see :mod:`fcbench.metrics.cases`)."""

    judge: JudgeAgreement | None = Field(default=None, exclude_if=lambda agreement: agreement is None)
    """The optional judge's agreement with the verdicts (:mod:`fcbench.metrics.judge`); left out of
    the JSON when the run had no judge."""

    tool_order: ToolOrderMetrics | None = Field(default=None, exclude_if=lambda probe: probe is None)
    """Selection consistency across tool orders and position bias (:mod:`fcbench.metrics.tool_order`);
    left out of the JSON when the run offered the tools in one order."""

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
