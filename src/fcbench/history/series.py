"""``fcbench history RUNS``: one point per run for each named target, oldest first.

A target is named by the config's ``name`` when it has one, else by its label ``endpoint:model``;
the points of one name, mode and suite form a :class:`Series`, whatever model served it, so a model
upgrade behind a name shows as a change of ``model`` between two points (``model_changed_from``).
Runs of another suite make a series of their own (pass rates over different cases do not compare),
and a new dataset version of the same suite is marked on its first point (``dataset_changed_from``).
Each run is read twice, both streaming: :func:`fcbench.metrics.compute_metrics` for the pass rate
and coverage loss, and :func:`fcbench.history.scan.scan_run` for the failure types (and patterns).
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from fcbench.history.runs import FoundRun, find_runs
from fcbench.history.scan import RunScan, scan_run
from fcbench.metrics import Rate, TargetMetrics, compute_metrics

HISTORY_VERSION = "1"


class Point(BaseModel):
    """One run of one named target and mode."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    run_id: str
    """The run's id."""
    started_at: str
    """The run's start time, ISO 8601."""
    path: str
    """The run's folder."""
    label: str
    """The target label of this run, ``endpoint:model``."""
    model: str
    """The model id the manifest pins for the target in this run."""
    model_changed_from: str | None = None
    """The previous point's model id, when this run's differs from it ("model changed: A -> B")."""
    dataset_version: str = ""
    """The suite's dataset version in this run."""
    dataset_changed_from: str | None = None
    """The previous point's dataset version, when this run's differs from it (cases were added)."""
    pass_rate: Rate
    """Passing observations out of scored ones, with its Wilson 95% interval (``low``, ``high``)."""
    change: float | None = None
    """``pass_rate.rate`` minus the previous point's (negative: a drop); null for the first point or
    when either rate is unknown."""
    separated: bool = False
    """The Wilson intervals of this point and the previous one do not overlap (a change beyond noise)."""
    failures: dict[str, Rate] = Field(default_factory=dict)
    """Failure type -> failing observations out of scored ones: the verdict decision when it is wrong
    (``wrong_tool``, ``missed_call``, ...), ``bad_arguments`` when the decision was right but the
    arguments or schema failed, ``recovery: OUTCOME`` for a failed multi-turn conversation."""
    coverage_loss: Rate
    """Provider and harness errors out of observed observations (never a model failure)."""
    provider_errors: dict[str, int] = Field(default_factory=dict)
    """Provider or harness error code -> observations lost to it."""
    damaged_lines: int = 0
    """Lines of the run's ``records.jsonl`` skipped as damaged (the run's, not this target's alone:
    a damaged line does not say whose observation it held)."""


class Series(BaseModel):
    """Every point of one target name and mode, oldest first."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    name: str
    """The config's name for the target, else its label."""
    mode: str
    """The mode."""
    suite: str = ""
    """The suite its runs measured (another suite's runs are another series)."""
    points: list[Point] = Field(default_factory=list)
    """One per run that measured this name in this mode, by start time."""


class History(BaseModel):
    """``fcbench history RUNS --format json``."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    history_version: str = HISTORY_VERSION
    """Version of this format."""
    root: str
    """The folder read."""
    runs: int
    """Runs read."""
    skipped: list[str] = Field(default_factory=list)
    """Directories with a manifest that were not read, each with why."""
    series: list[Series] = Field(default_factory=list)
    """One per target name and mode, in the order they first appear."""
    catalogue: str | None = None
    """The failure-mode catalogue of the folder, when there is one."""


def _point(run: FoundRun, scan: RunScan, t: TargetMetrics, damaged: int) -> Point:
    label, mode = t.target, t.mode
    scored = scan.scored.get((label, mode), 0)
    failures: dict[str, int] = dict(scan.failures.get((label, mode), {}))
    lost = sum(t.provider_errors.values())
    return Point(
        run_id=run.manifest.run_id,
        started_at=run.manifest.started_at,
        path=str(run.path),
        label=label,
        model=t.model,
        dataset_version=run.manifest.dataset_version,
        pass_rate=t.pass_rate,
        failures={kind: Rate(n=n, d=scored) for kind, n in sorted(failures.items(), key=lambda kv: -kv[1])},
        coverage_loss=Rate(n=lost, d=t.observed),
        provider_errors=dict(t.provider_errors),
        damaged_lines=damaged,
    )


def build_history(
    root: Path, target: str | None = None
) -> tuple[History, dict[str, RunScan], list[FoundRun]]:
    """The history of every run under ``root`` (only the series named ``target`` when given), the
    passes made over the runs (by run id, to fold into the catalogue) and the runs found."""
    found = find_runs(root)
    scans: dict[str, RunScan] = {}
    series: dict[tuple[str, str, str], Series] = {}
    for run in found.runs:
        metrics = compute_metrics(run.path)
        scan = scan_run(run.path, run.manifest)
        scans[run.manifest.run_id] = scan
        for t in metrics.targets:
            name = t.name or t.target
            if target is not None and target not in (name, t.target):
                continue
            if t.observed == 0:
                continue
            suite = run.manifest.suite
            line = series.setdefault((name, t.mode, suite), Series(name=name, mode=t.mode, suite=suite))
            line.points.append(_point(run, scan, t, metrics.damaged_lines))
    for line in series.values():
        _link(line.points)
    history = History(
        root=str(root), runs=len(found.runs), skipped=found.skipped, series=list(series.values())
    )
    return history, scans, found.runs


def _link(points: list[Point]) -> None:
    """Mark model changes and the change of pass rate from each point's previous one."""
    for before, now in zip(points, points[1:], strict=False):
        if now.model != before.model:
            now.model_changed_from = before.model
        if now.dataset_version != before.dataset_version:
            now.dataset_changed_from = before.dataset_version
        a, b = before.pass_rate, now.pass_rate
        if a.rate is not None and b.rate is not None:
            now.change = b.rate - a.rate
        if a.low is not None and a.high is not None and b.low is not None and b.high is not None:
            now.separated = b.high < a.low or b.low > a.high


__all__ = ["HISTORY_VERSION", "History", "Point", "Series", "build_history"]
