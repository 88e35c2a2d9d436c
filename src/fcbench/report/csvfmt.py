"""CSV report in long form: one row per target x mode x metric (x key).

Columns: ``run_id, target, mode, metric, key, n, d, value``. Rates fill ``n`` and ``d`` and put the
rate (0..1) in ``value``; counts and scalars leave ``n``/``d`` empty. ``key`` names the category,
tag, error code, anomaly code, repair kind, k, or ``expected->decision`` cell where a metric has
several entries (``anomalies`` has one row per anomaly code, its value the accepted observations
carrying it; ``repairs``, under a profile that repairs, one row per repair kind, its value the
repairs made).
``pass_hat_k`` and ``latency_ms`` put the number of cases / observations they summarise in ``d``.
Text cells that would start a spreadsheet formula (``=``, ``+``, ``-``, ``@``) get a leading ``'``.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator

from fcbench.metrics import Rate, RunMetrics, TargetMetrics
from fcbench.report.common import RATE_COLUMNS

CSV_COLUMNS = ("run_id", "target", "mode", "metric", "key", "n", "d", "value")

Row = tuple[str, str, int | None, int | None, float | int | None]


def render_csv(metrics: RunMetrics) -> str:
    """The CSV text (header first)."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for t in metrics.targets:
        for metric, key, n, d, value in _rows(t):
            texts = (metrics.run.run_id, t.target, t.mode, metric, key)
            writer.writerow([*map(_text, texts), _cell(n), _cell(d), _cell(value)])
    return buf.getvalue()


def _rate(metric: str, key: str, rate: Rate) -> Row:
    return (metric, key, rate.n, rate.d, rate.rate)


def _rows(t: TargetMetrics) -> Iterator[Row]:
    yield ("planned", "", None, None, t.planned)
    yield ("observed", "", None, None, t.observed)
    yield ("scorable", "", None, None, t.scorable)
    for attr, _ in RATE_COLUMNS:
        yield _rate(attr, "", getattr(t, attr))
    yield ("stability", "", t.stability.n, t.stability.d, t.stability.mean)
    yield ("unstable_cases", "", None, None, t.stability.unstable_cases)
    for code, count in t.provider_errors.items():
        yield ("provider_errors", code, None, None, count)
    for k, value in t.pass_hat_k.items():
        yield ("pass_hat_k", str(k), None, t.pass_hat_k_cases[k], value)
    for key, rate in t.by_category.items():
        yield _rate("by_category", key, rate)
    for key, rate in t.by_tag.items():
        yield _rate("by_tag", key, rate)
    for kind, row in t.confusion.items():
        for decision, count in row.items():
            yield ("confusion", f"{kind}->{decision}", None, None, count)
    for outcome, count in t.recovery_outcomes.items():
        yield ("recovery_outcomes", outcome, None, None, count)
    yield ("latency_ms", "p50", None, t.latency_ms.count, t.latency_ms.p50)
    yield ("latency_ms", "p95", None, t.latency_ms.count, t.latency_ms.p95)
    yield ("tokens", "input", None, None, t.tokens.input)
    yield ("tokens", "output", None, None, t.tokens.output)
    yield ("tokens", "cache_read", None, None, t.tokens.cache_read)
    yield ("tokens", "cache_write", None, None, t.tokens.cache_write)
    yield ("cost_usd", "", None, None, t.cost_usd)
    yield ("cost_per_pass", "", None, None, t.cost_per_pass)
    yield ("duplicates", "", None, None, t.duplicates)
    yield _rate("with_anomalies", "", t.with_anomalies)
    for code, count in t.anomalies.items():
        yield ("anomalies", code, None, None, count)
    yield ("drifting_cases", "", None, None, t.drifting_cases)
    if t.stream_parity is not None:
        yield _rate("stream_parity", "", t.stream_parity)
    if t.repaired is not None:
        yield _rate("repaired", "", t.repaired)
    for kind, count in t.repairs.items():
        yield ("repairs", kind, None, None, count)


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""A text cell starting with one of these would run as a formula in a spreadsheet."""


_LINE_BREAKS = re.compile(r"[\r\n\x0b\x0c\x85\u2028\u2029]+")
"""Anything a spreadsheet may read as the end of a row, even inside a quoted cell."""


def _text(value: str) -> str:
    """A text cell (tag, target, run id: possibly from someone else's suite) that can neither start a
    formula nor break the row (line breaks become spaces, so no line can begin with ``=``)."""
    value = _LINE_BREAKS.sub(" ", value)
    return "'" + value if value.startswith(FORMULA_STARTS) else value


def _cell(value: float | int | None) -> str:
    if value is None:
        return ""
    return repr(value) if isinstance(value, float) else str(value)
