"""Formatting helpers shared by the report formats: rate cells, escaping, ordering of worst cases."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from fcbench.contract import ANOMALY_CODES

if TYPE_CHECKING:  # the metrics stack loads when a report is made, not when a run starts
    from fcbench.metrics import CaseSummary, Rate, RunMetrics, TargetMetrics, Tokens

RATE_COLUMNS: tuple[tuple[str, str], ...] = (
    ("accepted", "Accepted requests"),
    ("selection_accuracy", "Selection accuracy"),
    ("schema_valid", "Schema-valid calls"),
    ("semantic_exact", "Semantically exact calls"),
    ("params_match", "Exact arguments"),
    ("clarification_accuracy", "Clarification accuracy"),
    ("abstention_accuracy", "Abstention accuracy"),
    ("recovery_success", "Recovery success"),
    ("pass_rate", "Pass rate"),
    ("coverage", "Coverage"),
)
"""Rate metrics in report order: (TargetMetrics attribute, column title)."""

_MD_SPECIAL = re.compile(r"([\\`*_\[\]|~])")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def fmt_rate(rate: Rate, digits: int = 1) -> str:
    """``85.0% (17/20)``; ``– (0/0)`` when nothing was measured."""
    if rate.rate is None:
        return f"– ({rate.n}/{rate.d})"
    return f"{rate.rate * 100:.{digits}f}% ({rate.n}/{rate.d})"


def fmt_rate_ci(rate: Rate, digits: int = 1) -> str:
    """``85.0% (17/20) [64.0–94.8]``: :func:`fmt_rate` and the Wilson 95% interval, in percent."""
    if rate.low is None or rate.high is None:
        return fmt_rate(rate, digits)
    return f"{fmt_rate(rate, digits)} [{rate.low * 100:.{digits}f}–{rate.high * 100:.{digits}f}]"


def anomaly_meaning(code: str) -> str:
    """What an anomaly code means (:data:`fcbench.contract.ANOMALY_CODES`)."""
    return ANOMALY_CODES.get(code, "not in this fcbench's anomaly vocabulary")


def fmt_counts(counts: dict[str, int]) -> str:
    """``code 3, other 1`` (already sorted by the metrics), or ``none``; cells must still be escaped."""
    return ", ".join(f"{code} {n}" for code, n in counts.items()) or "none"


def fmt_number(value: float | None, digits: int = 0) -> str:
    """A number with thousands separators, or ``–`` when unknown."""
    if value is None:
        return "–"
    return f"{value:,.{digits}f}"


def cached_part(tokens: Tokens) -> str:
    """What of the input tokens a prompt cache served or stored, as `` (N cached, M written to the
    cache)`` after the input total; empty when none was reported."""
    parts = [f"{fmt_number(tokens.cache_read)} cached"] if tokens.cache_read else []
    parts += [f"{fmt_number(tokens.cache_write)} written to the cache"] if tokens.cache_write else []
    return f" ({', '.join(parts)})" if parts else ""


def fmt_cost(value: float | None) -> str:
    """A USD amount with enough precision for per-request costs, or ``unknown``."""
    if value is None:
        return "unknown"
    return f"${value:.4f}" if value < 100 else f"${value:,.2f}"


def strip_control(text: str) -> str:
    """Drop control characters that are invalid in XML and noisy in terminals (keeps tab, newlines)."""
    return _CONTROL.sub("", text)


def md_escape(text: object, limit: int = 300) -> str:
    """Make untrusted text safe inside one markdown table cell.

    HTML-significant characters become entities, markdown punctuation is backslash-escaped, line
    breaks become spaces, and the text is cut to ``limit`` characters.
    """
    s = strip_control(str(text))
    if len(s) > limit:
        s = s[: limit - 1] + "…"
    s = s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    s = _MD_SPECIAL.sub(r"\\\1", s)
    return " ".join(s.split())


def column_label(metrics: RunMetrics, tm: TargetMetrics | CaseSummary) -> str:
    """A target's column title: the label, plus ``[mode]`` when the report covers several modes."""
    modes = {t.mode for t in metrics.targets}
    return tm.target if len(modes) <= 1 else f"{tm.target} [{tm.mode}]"


def display_name(t: TargetMetrics) -> str:
    """A target as the reports name it: its config name and label, ``prod (openai:gpt-4o)``, or
    the label alone when the config gave it no other name."""
    name = t.name
    return f"{name} ({t.target})" if name and name != t.target else t.target


def ranked(metrics: RunMetrics) -> list[TargetMetrics]:
    """The targets best first: by pass rate, then by the interval's lower bound (more evidence
    first), then by label; targets with nothing scored last."""
    return sorted(
        metrics.targets,
        key=lambda t: (
            t.pass_rate.rate is None,
            -(t.pass_rate.rate or 0.0),
            -(t.pass_rate.low or 0.0),
            t.target,
        ),
    )


def failing_cases(metrics: RunMetrics, limit: int | None = None) -> list[CaseSummary]:
    """Case x target summaries with at least one failing repeat, worst (lowest pass rate) first."""
    return metrics.cases.worst(limit)[1]


def provider_error_rows(metrics: RunMetrics) -> list[tuple[TargetMetrics, str, int]]:
    """(target, code, count) for every provider or harness error code seen, by target order."""
    return [(t, code, n) for t in metrics.targets for code, n in t.provider_errors.items()]


def anomaly_rows(metrics: RunMetrics) -> list[tuple[TargetMetrics, str, int]]:
    """(target, anomaly code, count) for every anomaly code seen, by target order."""
    return [(t, code, n) for t in metrics.targets for code, n in t.anomalies.items()]


def max_k(metrics: RunMetrics) -> int:
    """The largest k any target has a pass^k value for."""
    return max((max(t.pass_hat_k) for t in metrics.targets if t.pass_hat_k), default=0)
