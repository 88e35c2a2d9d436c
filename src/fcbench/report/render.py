"""One entry point for every report format: :func:`render_report` and the :data:`RENDERERS` registry."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fcbench.errors import ConfigError
from fcbench.grading import REPAIRING_PROFILES
from fcbench.grading.jsonvalues import short
from fcbench.grading.regrade import disagreements
from fcbench.metrics import RunMetrics, compute_metrics
from fcbench.report.common import md_escape
from fcbench.report.csvfmt import render_csv
from fcbench.report.gate import run_gate_failures, run_unsafe_writes
from fcbench.report.github import render_github_run
from fcbench.report.jsonfmt import render_json
from fcbench.report.junit import render_junit_run
from fcbench.report.markdown import render_markdown
from fcbench.report.notes import notes_section
from fcbench.store.records import read_manifest
from fcbench.store.view import RecordView, run_views
from fcbench.suite.loader import load_suite

RENDERERS: dict[str, Callable[[RunMetrics], str]] = {
    "md": render_markdown,
    "json": render_json,
    "csv": render_csv,
}
"""Formats rendered from the metrics alone."""


def _render_html(run_dir: Path, modes: list[str] | None, profile: str) -> str:
    from fcbench.report.html import render_html

    return render_html(run_dir, modes=modes, profile=profile)


RUN_RENDERERS: dict[str, Callable[[Path, list[str] | None, str], str]] = {
    "html": _render_html,
    "junit": render_junit_run,
    "github": render_github_run,
}
"""Formats that also read the observations: ``(run_dir, modes, profile) -> text``."""

FORMATS: tuple[str, ...] = (*RENDERERS, *RUN_RENDERERS)


def render_report(
    run_dir: Path, fmt: str = "md", modes: list[str] | None = None, profile: str = "strict"
) -> str:
    """The run's metrics (only ``modes``, scored by ``profile``) rendered as ``fmt``."""
    if fmt in RUN_RENDERERS:
        return RUN_RENDERERS[fmt](run_dir, modes, profile)
    renderer = RENDERERS.get(fmt)
    if renderer is None:
        raise ValueError(f"unknown report format {fmt!r}; choose from {', '.join(FORMATS)}")
    if fmt == "md" and profile in REPAIRING_PROFILES:
        repairs = RepairList(profile)
        metrics = compute_metrics(run_dir, modes=modes, profile=profile, observer=repairs)
        unsafe = run_unsafe_writes(run_dir)
        text = render_markdown(metrics, gate=run_gate_failures(run_dir, metrics, unsafe), unsafe=unsafe)
        return text + "\n" + _repair_table(repairs.rows, profile)
    metrics = compute_metrics(run_dir, modes=modes, profile=profile, parts="auto")
    if fmt == "md":
        unsafe = run_unsafe_writes(run_dir)
        gate = run_gate_failures(run_dir, metrics, unsafe)
        return render_markdown(metrics, gate=gate, unsafe=unsafe) + notes_section(run_dir, metrics)
    return renderer(metrics)


REPAIR_FIELDS = ("kind", "call", "tool", "path", "before", "after")
"""The fields of a repair (:class:`fcbench.grading.Repair`) each row of a :class:`RepairList` copies."""


class RepairList:
    """Collects, as a metrics observer, one row per repair of the observations the metrics score.

    A row: ``seq``, ``profile``, ``target``, ``case_id``, ``repeat``, ``mode``, and the repair's
    ``kind``, ``call``, ``tool``, ``path``, ``before`` and ``after``. Like the metrics, it takes the
    first scorable record of each (target, case, repeat, mode), so its counts are the metrics'.
    """

    def __init__(self, profile: str) -> None:
        self.profile = profile
        self.rows: list[dict[str, Any]] = []
        self._scored: set[tuple[str, str, str, str]] = set()

    def __call__(self, record: RecordView) -> None:
        verdict = record.verdict_data()
        if verdict is None or verdict.get("decision") in (None, "not_scored"):
            return
        if record.outcome.kind == "provider_error":
            return
        label = record.label
        where = (label, str(record.case_id), str(record.repeat), str(record.mode))
        if where in self._scored:
            return
        self._scored.add(where)
        for repair in verdict.get("repairs") or []:
            if isinstance(repair, dict):
                self.rows.append(
                    {
                        "seq": record.seq,
                        "profile": self.profile,
                        "target": label,
                        "case_id": record.case_id,
                        "repeat": record.repeat,
                        "mode": record.mode,
                        **{key: repair.get(key) for key in REPAIR_FIELDS},
                    }
                )


def render_profiles(run_dir: Path, fmt: str, profiles: list[str], modes: list[str] | None = None) -> str:
    """Several scoring profiles side by side, the observations where their verdicts disagree, and,
    for a profile that repairs, every repair it made (JSON: ``repairs``, one row per repair)."""
    if fmt not in ("md", "json"):
        raise ConfigError(f"several profiles can be shown in md or json, not {fmt}", key="--profile")
    manifest = read_manifest(run_dir)
    suite = load_suite(manifest.suite_ref or manifest.suite)
    split = disagreements((view.observation() for view in run_views(run_dir)), suite, profiles)
    metrics: dict[str, RunMetrics] = {}
    repairs: dict[str, RepairList] = {}
    for p in profiles:
        observer = RepairList(p) if p in REPAIRING_PROFILES else None
        if observer is not None:
            repairs[p] = observer
        metrics[p] = compute_metrics(run_dir, modes=modes, profile=p, observer=observer)
    if fmt == "json":
        data: dict[str, Any] = {
            "profiles": {p: json.loads(m.to_json()) for p, m in metrics.items()},
            "disagreements": split,
        }
        if repairs:
            data["repairs"] = [row for p in repairs for row in repairs[p].rows]
        return json.dumps(data, indent=2) + "\n"
    parts = [f"# Scoring profile: {p}\n\n" + render_markdown(m) for p, m in metrics.items()]
    parts.append(_disagreement_table(profiles, split))
    parts += [_repair_table(repairs[p].rows, p) for p in repairs]
    return "\n\n".join(parts)


REPAIR_ROWS = 200
"""How many repairs the markdown list shows (the JSON of several profiles lists them all)."""


def _change(row: dict[str, Any]) -> str:
    """``before → after`` of one repair row."""
    kind, before, after = row.get("kind"), row.get("before"), row.get("after")
    if kind == "call_from_text" and isinstance(after, dict):
        return f"text → {after.get('name')}({short(after.get('arguments'))})"
    if kind == "unknown_key_dropped":
        return f"{short(before)} → (dropped)"
    if kind == "default_inserted":
        return f"(absent) → {short(after)}"
    return f"{short(before)} → {short(after)}"


def _repair_table(rows: list[dict[str, Any]], profile: str) -> str:
    observations = len({(row["target"], row["case_id"], row["repeat"], row["mode"]) for row in rows})
    header = f"# Repairs under {profile} ({len(rows)} repairs in {observations} observations)\n\n"
    if not rows:
        return header + "No observation needed a repair.\n"
    intro = ""
    if len(rows) > REPAIR_ROWS:
        intro = f"The first {REPAIR_ROWS} are listed; the JSON of several profiles lists them all.\n\n"
    columns = ["Target", "Case", "Repeat", "Mode", "Call", "Repair", "Path", "Before → after"]
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for row in rows[:REPAIR_ROWS]:
        cells = [row["target"], row["case_id"], row["repeat"], row["mode"], row["call"], row["kind"]]
        cells += [row["path"] or "-", _change(row)]
        lines.append("| " + " | ".join(md_escape(str(c)) for c in cells) + " |")
    return header + intro + "\n".join(lines) + "\n"


def _disagreement_table(profiles: list[str], split: list[dict[str, Any]]) -> str:
    header = f"# Where {' and '.join(profiles)} disagree ({len(split)} observations)\n\n"
    if not split:
        return header + "The profiles agree on every observation.\n"
    columns = ["Target", "Case", "Repeat", "Mode"] + [f"{p} passed" for p in profiles] + ["Reasons"]
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for row in split:
        reasons = "; ".join(f"{p}: {', '.join(row['reasons'][p]) or '-'}" for p in profiles)
        cells = [row["target"], row["case_id"], str(row["repeat"]), row["mode"]]
        cells += [str(row["passed"][p]) for p in profiles] + [reasons]
        lines.append("| " + " | ".join(md_escape(str(c)) for c in cells) + " |")
    return header + "\n".join(lines) + "\n"
