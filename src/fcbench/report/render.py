"""One entry point for every report format: :func:`render_report` and the :data:`RENDERERS` registry."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fcbench.errors import ConfigError
from fcbench.grading.regrade import disagreements
from fcbench.metrics import RunMetrics, compute_metrics
from fcbench.report.common import md_escape
from fcbench.report.csvfmt import render_csv
from fcbench.report.github import render_github
from fcbench.report.jsonfmt import render_json
from fcbench.report.junit import render_junit_run
from fcbench.report.markdown import render_markdown
from fcbench.store.records import read_manifest, run_record_dicts
from fcbench.suite.loader import load_suite

RENDERERS: dict[str, Callable[[RunMetrics], str]] = {
    "md": render_markdown,
    "json": render_json,
    "csv": render_csv,
    "github": render_github,
}
"""Formats rendered from the metrics alone."""


def _render_html(run_dir: Path, modes: list[str] | None, profile: str) -> str:
    from fcbench.report.html import render_html

    return render_html(run_dir, modes=modes, profile=profile)


RUN_RENDERERS: dict[str, Callable[[Path, list[str] | None, str], str]] = {
    "html": _render_html,
    "junit": render_junit_run,
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
    return renderer(compute_metrics(run_dir, modes=modes, profile=profile))


def render_profiles(run_dir: Path, fmt: str, profiles: list[str], modes: list[str] | None = None) -> str:
    """Several scoring profiles side by side, and the observations where their verdicts disagree."""
    if fmt not in ("md", "json"):
        raise ConfigError(f"several profiles can be shown in md or json, not {fmt}", key="--profile")
    manifest = read_manifest(run_dir)
    suite = load_suite(manifest.suite_ref or manifest.suite)
    split = disagreements(run_record_dicts(run_dir), suite, profiles)
    if fmt == "json":
        data = {p: json.loads(compute_metrics(run_dir, modes=modes, profile=p).to_json()) for p in profiles}
        return json.dumps({"profiles": data, "disagreements": split}, indent=2) + "\n"
    parts = []
    for p in profiles:
        metrics = compute_metrics(run_dir, modes=modes, profile=p)
        parts.append(f"# Scoring profile: {p}\n\n" + render_markdown(metrics))
    parts.append(_disagreement_table(profiles, split))
    return "\n\n".join(parts)


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
