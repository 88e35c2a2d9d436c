"""Reports show the cached part of the input tokens beside their total."""

from __future__ import annotations

from pathlib import Path

from records_builder import RunBuilder, call_outcome, verdict

from fcbench.metrics import compute_metrics
from fcbench.report.csvfmt import render_csv
from fcbench.report.html import summary_rows
from fcbench.report.markdown import render_markdown

CALL = call_outcome(("lookup_order", {"order_id": "ORD-104821"}))


def _run(tmp_path: Path, *usages: tuple[int | None, ...]) -> Path:
    builder = RunBuilder(tmp_path)
    for index, usage in enumerate(usages):
        builder.add(f"c{index}", CALL, verdict(), usage=usage)
    return builder.write()


def test_the_cached_part_is_shown_where_input_tokens_are(tmp_path: Path) -> None:
    metrics = compute_metrics(_run(tmp_path, (1_200, 20, 1_000, 150), (588, 58, 587)))
    assert "1,788 (1,587 cached, 150 written to the cache)" in render_markdown(metrics)
    [row] = summary_rows(metrics)
    assert row["tokens"] == "1,788 (1,587 cached, 150 written to the cache) / 78"
    assert "cache_read" in render_csv(metrics) and "1587" in render_csv(metrics)


def test_no_cached_part_is_shown_when_none_was_reported(tmp_path: Path) -> None:
    metrics = compute_metrics(_run(tmp_path / "plain", (100, 20), (50, 5)))
    assert "cached" not in render_markdown(metrics)
    assert summary_rows(metrics)[0]["tokens"] == "150 / 25"
