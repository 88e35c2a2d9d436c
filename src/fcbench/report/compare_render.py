"""How a comparison reads: markdown (``fcbench compare``'s default) and JSON.

The comparison itself, pairing and gating, is :mod:`fcbench.report.compare`; this module only
renders it (the ``github`` step summary is :mod:`fcbench.report.github`).
"""

from __future__ import annotations

from fcbench.report.common import RATE_COLUMNS, fmt_rate, fmt_rate_ci, md_escape, strip_control
from fcbench.report.compare import Comparison, Flip, FlipKind, MetricDelta, ValueDelta, fmt_value
from fcbench.report.markdown import table

MAX_FLIPS_SHOWN = 50
"""Flipped cases listed per group in markdown (JSON lists them all)."""
_TITLES = dict(RATE_COLUMNS)


_FLIP_GROUPS: tuple[tuple[str, FlipKind, str], ...] = (
    ("pass_to_fail", "full", "Flipped pass -> fail, full (every repeat passed -> none passed)"),
    ("pass_to_fail", "partial", "Flipped pass -> fail, partial (every repeat passed -> some failed)"),
    ("fail_to_pass", "full", "Flipped fail -> pass, full (none passed -> every repeat passed)"),
    ("fail_to_pass", "partial", "Flipped fail -> pass, partial (some failed -> every repeat passed)"),
)


def flip_groups(c: Comparison) -> list[tuple[str, list[Flip]]]:
    """The real flips (:attr:`~fcbench.report.compare.Flip.real`) in four titled groups: pass -> fail
    full and partial, fail -> pass full and partial."""
    return [
        (title, [f for f in getattr(c, direction) if f.kind == kind and f.real])
        for direction, kind, title in _FLIP_GROUPS
    ]


def noise_flips(c: Comparison) -> list[Flip]:
    """The flips whose pass rate stayed within its interval (noise), both directions."""
    return [f for f in (*c.pass_to_fail, *c.fail_to_pass) if not f.real]


NOISE_NOTE = (
    "flips within noise (each side's pass rate inside the other's 95% interval, e.g. 3/3 -> 2/3): "
    "not listed as changes"
)
"""What the reports say of the flips that are noise."""


def significance_mark(d: MetricDelta) -> str:
    """``significant drop`` / ``significant rise`` when the change's p-value is below alpha, else empty."""
    if not d.significant or d.delta_points is None:
        return ""
    return "significant drop" if d.delta_points < 0 else "significant rise"


def fmt_delta(d: MetricDelta) -> str:
    """``-12.5 [-20.1, -4.0]``: the delta in points and its 95% interval; ``–`` when unknown."""
    if d.delta_points is None:
        return "–"
    if d.delta_low is None or d.delta_high is None:
        return f"{d.delta_points:+.1f}"
    return f"{d.delta_points:+.1f} [{d.delta_low:+.1f}, {d.delta_high:+.1f}]"


def render_compare_json(comparison: Comparison) -> str:
    """The comparison as indented JSON."""
    return comparison.model_dump_json(indent=2) + "\n"


def gate_text(c: Comparison) -> str:
    """One sentence listing the thresholds of the gate."""
    parts = [
        f"pass-rate drop over {c.max_drop:g} points",
        f"a drop with p < {c.alpha:g} in any model metric",
        f"coverage drop over {c.max_coverage_drop:g} points",
        "a BASE target with no partner or a target with nothing scorable",
    ]
    if c.max_latency_increase is not None:
        parts.append(f"p95 latency increase over {c.max_latency_increase:g}%")
    if c.max_cost_increase is not None:
        parts.append(f"cost per pass increase over {c.max_cost_increase:g}%")
    return "Gate: " + ", ".join(parts) + "."


def render_compare_markdown(comparison: Comparison) -> str:
    """The comparison as markdown; the last line is the verdict."""
    c = comparison
    out = [
        f"# fcbench compare: {md_escape(c.base_run)} -> {md_escape(c.new_run)}",
        "",
        f"Dataset {md_escape(c.base_dataset)} -> {md_escape(c.new_dataset)}. {gate_text(c)}",
    ]
    if c.failures or c.warnings or c.only_in_new:
        out.append("")
    out += [f"- FAILED: {md_escape(f, limit=500)}" for f in c.failures]
    out += [f"- WARNING: {md_escape(w, limit=500)}" for w in c.warnings]
    if c.targets:
        rows = [
            [md_escape(t.title), md_escape(t.mode), t.pairing, md_escape(t.base_target), md_escape(t.target)]
            for t in c.targets
        ]
        out += ["", "## Pairs", ""] + table(["Pair", "Mode", "Paired by", "Base target", "New target"], rows)
    for t in c.targets:
        flag = "REGRESSED" if t.regressed else "ok"
        out += ["", f"## {md_escape(t.title)} [{md_escape(t.mode)}]: {flag}", ""]
        out += [f"- {md_escape(r, limit=500)}" for r in t.reasons] + ([""] if t.reasons else [])
        rows = [
            [
                _TITLES.get(d.metric, md_escape(d.metric)),
                fmt_rate_ci(d.base),
                fmt_rate_ci(d.new),
                fmt_delta(d),
                "–" if d.p_value is None else f"{d.p_value:.3g}",
                significance_mark(d),
            ]
            for d in t.deltas
        ]
        out += table(["Metric", "Base [95% CI]", "New [95% CI]", "Δ points [95% CI]", "p-value", ""], rows)
        out.append("")
        out += table(
            ["Latency and cost", "Base", "New", "Change", "Gate"], [_value_row(v) for v in t.operations]
        )
    for title, flips in flip_groups(c):
        out += ["", f"## {title}: {len(flips)}", ""]
        if not flips:
            out.append("None.")
            continue
        rows = [
            [
                md_escape(
                    f.case_id + (f" (tool changed: {', '.join(f.changed_tools)})" if f.changed_tools else "")
                ),
                md_escape(f"{f.title} [{f.mode}]"),
                fmt_rate(f.base, 0),
                fmt_rate(f.new, 0),
            ]
            for f in flips[:MAX_FLIPS_SHOWN]
        ]
        out += table(["Case", "Target", "Base", "New"], rows)
        if len(flips) > MAX_FLIPS_SHOWN:
            out.append(f"\n{len(flips) - MAX_FLIPS_SHOWN} more not shown (see --format json).")
    noise = noise_flips(c)
    if noise:
        out += ["", f"## Within noise: {len(noise)}", "", f"{len(noise)} {NOISE_NOTE} (see --format json)."]
    out += ["", one_line(c.verdict)]
    return "\n".join(out) + "\n"


_VALUE_TITLES = {
    "latency_p50_ms": "Latency p50",
    "latency_p95_ms": "Latency p95",
    "cost_per_pass_usd": "Cost per passing observation",
}


def one_line(text: str) -> str:
    """Text on one line that opens no HTML tag: control characters and line breaks gone, ``<`` escaped."""
    return " ".join(strip_control(text).replace("<", "&lt;").split())


def _value_row(v: ValueDelta) -> list[str]:
    change = "–" if v.change_pct is None else f"{v.change_pct:+.1f}%"
    if v.limit_pct is None:
        gate = "not gated"
    else:
        gate = f"FAILED (limit +{v.limit_pct:g}%)" if v.exceeded else f"ok (limit +{v.limit_pct:g}%)"
    return [_VALUE_TITLES[v.metric], fmt_value(v.metric, v.base), fmt_value(v.metric, v.new), change, gate]
