"""What the viewer's run-versus-run page shows: the comparison of :func:`fcbench.report.compare.compare_runs`
with the pairs chosen in the page, each pair's per-metric change table, the real flips (the noise
counted and folded away), the outputs of a flipped case side by side with their differences marked,
and one matrix whose rows line up: per case, each pair's base and new cells next to each other.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlencode

from fcbench.metrics import CaseSummary, RunMetrics
from fcbench.report.common import RATE_COLUMNS, fmt_rate_ci
from fcbench.report.compare import Comparison, Flip, TargetComparison, compare_runs
from fcbench.report.compare_render import NOISE_NOTE, flip_groups, fmt_delta, noise_flips, significance_mark
from fcbench.report.pairing import named
from fcbench.view import query
from fcbench.view.runs import RunEntry, RunSummary

MAX_COMPARE_ROWS = 2000
"""Cases shown in the side-by-side matrix (real flips first, then noise, then the worst)."""
MAX_DIFFS = 10
"""Real flips whose outputs are shown side by side."""
_TITLES = dict(RATE_COLUMNS)


def run_link(key: str, case_id: str, column: str) -> str:
    """The address of a run's page with one case x target cell open."""
    return f"/runs/{quote(key)}#" + urlencode({"case": case_id, "target": column})


def _column(metrics: RunMetrics, target: str, mode: str) -> str:
    """The run page's column label of a target and mode."""
    several = len({t.mode for t in metrics.targets}) > 1
    return f"{target} [{mode}]" if several else target


def _colour(s: CaseSummary | None) -> str:
    if s is None or s.passed.d == 0:
        return "#d9d9d9"
    return f"hsl({round(120 * s.passed.n / s.passed.d)}, 65%, 72%)"


@dataclass(frozen=True)
class DiffRow:
    """One aligned line of two outputs."""

    base: str
    """The base side's line (empty where the new side has a line the base lacks)."""
    new: str
    """The new side's line."""
    kind: str
    """``equal``, ``replace``, ``delete`` (base only) or ``insert`` (new only)."""


def side_by_side(base: str, new: str) -> list[DiffRow]:
    """Two texts aligned line by line (:class:`difflib.SequenceMatcher`), the differing lines marked."""
    a, b = base.splitlines(), new.splitlines()
    rows: list[DiffRow] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        left, right = a[i1:i2], b[j1:j2]
        for k in range(max(len(left), len(right))):
            rows.append(DiffRow(left[k] if k < len(left) else "", right[k] if k < len(right) else "", tag))
    return rows


def _shown_output(obs: dict[str, Any] | None) -> str:
    """What the diff shows of an observation: its outcome and why it failed, as indented JSON."""
    if obs is None:
        return "(no observation)"
    shown: dict[str, Any] = {"result": obs["result"], "decision": obs["decision"], "outcome": obs["outcome"]}
    if obs["reasons"]:
        shown["reasons"] = obs["reasons"]
    if obs["error"]:
        shown["error"] = obs["error"]
    return json.dumps(shown, indent=2, ensure_ascii=False, sort_keys=True)


def _example(
    entry: RunEntry, summary: RunSummary, column: str, case_id: str, result: str
) -> dict[str, Any] | None:
    """The first observation of a case in a column with this result (else its first), from the run's table."""
    table = summary.table
    numbers = table.matching({"case": case_id, "target": column, "result": result}, query.ORDER)
    numbers = numbers or table.matching({"case": case_id, "target": column}, query.ORDER)
    if not numbers:
        return None
    return query.observation(entry.path, table, numbers[0], summary.several_modes)


def output_diff(
    base: tuple[RunEntry, RunSummary], new: tuple[RunEntry, RunSummary], flip: Flip, direction: str
) -> dict[str, Any]:
    """A real flip's outputs side by side: a passing observation on the side that passed every repeat,
    a failing one on the other."""
    base_result, new_result = ("pass", "fail") if direction == "pass_to_fail" else ("fail", "pass")
    base_column = _column(base[1].metrics, flip.base_target, flip.mode)
    new_column = _column(new[1].metrics, flip.target, flip.mode)
    before = _example(*base, base_column, flip.case_id, base_result)
    after = _example(*new, new_column, flip.case_id, new_result)
    return {
        "flip": flip,
        "direction": direction,
        "base_n": None if before is None else before["n"],
        "new_n": None if after is None else after["n"],
        "rows": side_by_side(_shown_output(before), _shown_output(after)),
    }


def metric_rows(t: TargetComparison) -> list[dict[str, Any]]:
    """A pair's per-metric change table: both rates with intervals, the delta with its interval, the
    p-value and the significance mark."""
    return [
        {
            "metric": _TITLES.get(d.metric, d.metric),
            "base": fmt_rate_ci(d.base),
            "new": fmt_rate_ci(d.new),
            "delta": fmt_delta(d),
            "p": "–" if d.p_value is None else f"{d.p_value:.3g}",
            "mark": significance_mark(d),
        }
        for d in t.deltas
    ]


def _cases_in_order(comparison: Comparison, b: RunSummary, n: RunSummary) -> list[str]:
    """Every case, the real flips first, then the noise, then by lowest pass rate on either side."""
    rank: dict[str, int] = {}
    for f in noise_flips(comparison):
        rank[f.case_id] = 1
    for _, flips in flip_groups(comparison):
        for f in flips:
            rank[f.case_id] = 0
    worst: dict[str, float] = {}
    for c in [*b.metrics.cases, *n.metrics.cases]:
        rate = c.passed.n / c.passed.d if c.passed.d else 2.0
        worst[c.case_id] = min(worst.get(c.case_id, 2.0), rate)
    return sorted(worst, key=lambda cid: (rank.get(cid, 2), worst[cid], cid))


def _cell(key: str, metrics: RunMetrics, s: CaseSummary | None, target: str, mode: str) -> dict[str, Any]:
    column = _column(metrics, target, mode)
    if s is None:
        return {"text": "–", "colour": "#fff", "title": f"{column}: not in this run", "href": None}
    return {
        "text": f"{s.passed.n}/{s.passed.d}" if s.passed.d else f"err {s.errors}",
        "colour": _colour(s),
        "title": f"{column}: {fmt_rate_ci(s.passed)}",
        "href": run_link(key, s.case_id, column),
    }


def matrix(
    base: tuple[RunEntry, RunSummary],
    new: tuple[RunEntry, RunSummary],
    comparison: Comparison,
    cases: list[str],
) -> list[dict[str, Any]]:
    """One row per case: for each pair, its base cell and its new cell, next to each other."""
    (be, b), (ne, n) = base, new
    base_cells = {(c.target, c.mode, c.case_id): c for c in b.metrics.cases}
    new_cells = {(c.target, c.mode, c.case_id): c for c in n.metrics.cases}
    kinds = {
        (f.target, f.mode, f.case_id): ("real " if f.real else "noise ") + direction
        for direction in ("pass_to_fail", "fail_to_pass")
        for f in getattr(comparison, direction)
    }
    rows = []
    for case_id in cases:
        pairs = []
        for t in comparison.targets:
            before = base_cells.get((t.base_target, t.mode, case_id))
            after = new_cells.get((t.target, t.mode, case_id))
            pairs.append(
                {
                    "base": _cell(be.key, b.metrics, before, t.base_target, t.mode),
                    "new": _cell(ne.key, n.metrics, after, t.target, t.mode),
                    "flip": kinds.get((t.target, t.mode, case_id), ""),
                }
            )
        rows.append({"case_id": case_id, "pairs": pairs})
    return rows


def pairing_choices(b: RunSummary, n: RunSummary, comparison: Comparison) -> list[dict[str, Any]]:
    """Per BASE target, the NEW targets it may be paired with and the one it is paired with now."""
    paired = {t.base_target: t.target for t in comparison.targets}
    new_targets = list(dict.fromkeys(t.target for t in n.metrics.targets))
    new_names = {t.target: named(t.name, t.target) for t in n.metrics.targets}
    choices = []
    for label in dict.fromkeys(t.target for t in b.metrics.targets):
        name = next(named(t.name, t.target) for t in b.metrics.targets if t.target == label)
        options = [
            {"value": v, "text": new_names[v], "selected": paired.get(label) == v} for v in new_targets
        ]
        choices.append({"base": label, "title": name, "options": options, "paired": label in paired})
    return choices


def compare_context(
    base: tuple[RunEntry, RunSummary],
    new: tuple[RunEntry, RunSummary],
    *,
    pairs: Sequence[tuple[str, str]] | None = None,
    only_flips: bool = False,
) -> dict[str, Any]:
    """What the run-versus-run page shows (``pairs``: the ``(BASE, NEW)`` targets chosen in the page,
    the only ones compared; None: paired by name as ``fcbench compare`` pairs them)."""
    (be, b), (ne, n) = base, new
    comparison = compare_runs(
        b.metrics, n.metrics, allow_dataset_change=True, pairs=pairs or (), only_given_pairs=pairs is not None
    )
    real = [
        (direction, f)
        for direction in ("pass_to_fail", "fail_to_pass")
        for f in getattr(comparison, direction)
        if f.real
    ]
    cases = _cases_in_order(comparison, b, n)
    if only_flips:
        flipped = {f.case_id for _, f in real}
        cases = [cid for cid in cases if cid in flipped]
    link = {"base": be.key, "new": ne.key}
    query_pairs = [("pair", f"{x}={y}") for x, y in pairs or ()]
    return {
        "base": be,
        "new": ne,
        "comparison": comparison,
        "pairs": [{"t": t, "metrics": metric_rows(t)} for t in comparison.targets],
        "real_flips": [
            {
                "flip": f,
                "kind": direction,
                "base_href": run_link(be.key, f.case_id, _column(b.metrics, f.base_target, f.mode)),
                "new_href": run_link(ne.key, f.case_id, _column(n.metrics, f.target, f.mode)),
            }
            for direction, f in real
        ],
        "noise": noise_flips(comparison),
        "noise_note": NOISE_NOTE,
        "diffs": [output_diff(base, new, f, direction) for direction, f in real[:MAX_DIFFS]],
        "choices": pairing_choices(b, n, comparison),
        "rows": matrix(base, new, comparison, cases[:MAX_COMPARE_ROWS]),
        "total_cases": len(cases),
        "only_flips": only_flips,
        "self_link": "/compare?" + urlencode([*link.items(), *query_pairs]),
    }
