"""The judge's agreement in every report format (a run with ``--judge``; JSON: ``metrics.judge``).

One row per target and mode: the agreement with the deterministic verdicts (n/d of the rated
observations), the observations the judge was asked about, those it failed on (coverage of the
judge) and its labels; then every disagreement with its case id, the decision and the judge's
label and reason.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console

from fcbench.metrics import RunMetrics
from fcbench.metrics.judge import JudgeAgreement
from fcbench.redact import sanitize
from fcbench.report.common import fmt_rate, fmt_rate_ci, md_escape

TERMINAL_DISAGREEMENTS = 20
"""Disagreements the run's summary lists (the reports list them all)."""


def _labels(counts: dict[str, int]) -> str:
    return ", ".join(f"{label} {count}" for label, count in sorted(counts.items())) or "-"


def agreement_rows(agreement: JudgeAgreement) -> list[dict[str, Any]]:
    """One row per target and mode: target, mode, agreement, judged, failed and labels."""
    return [
        {
            "target": row.target,
            "mode": row.mode,
            "agreement": fmt_rate_ci(row.agreement),
            "judged": row.judged,
            "failed": row.failed,
            "labels": _labels(row.labels),
        }
        for row in agreement.targets
    ]


def _heading(agreement: JudgeAgreement) -> str:
    return (
        f"judge {agreement.judge}, rubric {agreement.rubric} (sha256 {agreement.rubric_sha256[:12]}): "
        "rates the text replies the rules decided, beside the verdicts, never changing them"
    )


def judge_markdown(metrics: RunMetrics) -> list[str]:
    """The markdown section of the judge's agreement (nothing for a run without a judge)."""
    agreement = metrics.judge
    if agreement is None:
        return []
    out = ["## Judge agreement", "", md_escape(_heading(agreement)) + ".", ""]
    out += [
        "| Target | Mode | Agrees with the verdict | Judged | Judge failed | Labels |",
        "|---|---|---|---|---|---|",
    ]
    for row in agreement_rows(agreement):
        cells = [
            md_escape(str(row[key])) for key in ("target", "mode", "agreement", "judged", "failed", "labels")
        ]
        out.append("| " + " | ".join(cells) + " |")
    out += ["", f"### Disagreements ({len(agreement.disagreements)})", ""]
    if not agreement.disagreements:
        return [*out, "None: the judge agrees with every verdict it rated.", ""]
    out += [
        "| Target | Mode | Case | Repeat | Decision | Judge | Judge's reason |",
        "|---|---|---|---|---|---|---|",
    ]
    for d in agreement.disagreements:
        cells = [d.target, d.mode, d.case_id, str(d.repeat), d.decision, d.label, d.reason or ""]
        out.append("| " + " | ".join(md_escape(cell) for cell in cells) + " |")
    return [*out, ""]


def print_judge(console: Console, metrics: RunMetrics) -> None:
    """The judge's agreement per target and mode, and the first disagreements, on the run's summary."""
    agreement = metrics.judge
    if agreement is None:
        return
    say = lambda text: console.print(sanitize(text), highlight=False, markup=False, soft_wrap=True)  # noqa: E731
    say(_heading(agreement))
    for row in agreement.targets:
        say(
            f"judge agreement {row.target} [{row.mode}]: {fmt_rate(row.agreement)} "
            f"(judged {row.judged}, judge failed {row.failed}; {_labels(row.labels)})"
        )
    for d in agreement.disagreements[:TERMINAL_DISAGREEMENTS]:
        say(
            f"  disagrees {d.target} [{d.mode}] {d.case_id} #{d.repeat}: "
            f"{d.decision} vs {d.label}: {d.reason or ''}"
        )
    more = len(agreement.disagreements) - TERMINAL_DISAGREEMENTS
    if more > 0:
        say(f"  ... {more} more disagreements (fcbench report RUN lists them all)")


def judge_context(metrics: RunMetrics) -> dict[str, Any] | None:
    """What the HTML report's judge section shows (None for a run without a judge)."""
    agreement = metrics.judge
    if agreement is None:
        return None
    return {
        "heading": _heading(agreement),
        "rows": agreement_rows(agreement),
        "disagreements": [d.model_dump() for d in agreement.disagreements],
    }


__all__ = ["TERMINAL_DISAGREEMENTS", "agreement_rows", "judge_context", "judge_markdown", "print_judge"]
