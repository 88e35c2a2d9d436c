"""The compat report's shapes: one cell per target and probe, rows, and the whole report.

:mod:`fcbench.compat.classify` fills them from a run's records; :mod:`fcbench.compat.render`
prints them. They are also the JSON format of ``compat.json``.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from fcbench.store.records import PinnedTarget

KeywordStatus = Literal["rejected", "transformed", "untested", "accepted_violated", "accepted_enforced"]
CapabilityStatus = Literal["honoured", "ignored", "partial", "rejected", "untested", "unsupported"]


class KeywordCell(BaseModel):
    """One target's result for one keyword probe variant."""

    status: KeywordStatus
    observations: int = 0
    rejected: int = 0
    errors: dict[str, int] = Field(default_factory=dict)
    """Other provider errors (coverage loss) by code."""
    no_call: int = 0
    """Accepted turns without a call."""
    calls: int = 0
    violating_calls: int = 0
    omitted: int = 0
    """Calls that left every probed value out (honoured only vacuously)."""
    messages: list[str] = Field(default_factory=list)
    """The provider's rejection messages, verbatim."""
    transforms: list[str] = Field(default_factory=list)
    """fcbench's own changes to the probed keyword, e.g. ``minLength removed at /properties/message``."""
    violations: list[str] = Field(default_factory=list)
    """Examples of what the violating calls did wrong."""


class KeywordRow(BaseModel):
    """One keyword probe variant across targets."""

    case_id: str
    probe: str
    keyword: str
    strict: bool
    tool: str
    cells: dict[str, KeywordCell]
    """Target label -> cell."""
    derived: bool = False
    """Derived from the user's suite (``--suite``) rather than shipped."""
    property: str | None = None
    """Derived probes: where the keyword applies in the arguments (``address.postal_code``)."""
    pointer: str | None = None
    """Derived probes: JSON pointer of the subschema using the keyword, in the tool's parameters."""

    def label(self) -> str:
        """``get_weather.city: pattern`` for a derived row, the keyword name for a shipped one."""
        if not self.derived:
            return self.keyword
        where = self.tool
        if self.property:
            where += (" " if self.property.startswith("(") else ".") + self.property
        return f"{where}: {self.keyword}"


class SuiteProbes(BaseModel):
    """The user's suite the derived rows come from, as pinned in the run's manifest."""

    name: str
    dataset_version: str
    dataset_hash: str
    probes: int
    """Derived probes (each runs once per strict variant)."""
    probes_hash: str
    """SHA-256 of the derivation version, the derived probes and the suite's tools."""


class CapabilityCell(BaseModel):
    """One target's result for one capability probe."""

    status: CapabilityStatus
    expressible: bool = True
    """False when the dialect cannot put this request on the wire."""
    observations: int = 0
    honoured: int = 0
    ignored: int = 0
    inconclusive: int = 0
    rejected: int = 0
    errors: dict[str, int] = Field(default_factory=dict)
    messages: list[str] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    """What the adapter could not map exactly about this request (from the records' ``notes``)."""


class CapabilityRow(BaseModel):
    """One capability probe across targets."""

    probe: str
    capability: str
    cells: dict[str, CapabilityCell]


class CompatReport(BaseModel):
    """Both matrices of a compat run."""

    run_id: str
    run_dir: str
    repeats: int
    targets: list[PinnedTarget]
    """The manifest's target entries."""
    keywords: list[KeywordRow]
    capabilities: list[CapabilityRow]
    suite: SuiteProbes | None = None
    """Present when keyword probes were derived from a suite's own tools (``--suite``)."""
