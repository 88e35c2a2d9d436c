"""A line break in untrusted text never starts a CSV row, so no row can begin with a formula."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from records_builder import RunBuilder, call_outcome, verdict

from fcbench.report.render import render_report


def test_line_breaks_in_tags_cannot_start_a_formula_row(tmp_path: Path) -> None:
    builder = RunBuilder(tmp_path)
    evil = ['x\r=HYPERLINK("http://evil.example")', "y\n+1+1", "z\u2028@SUM(A1)"]
    builder.add("case-1", call_outcome(("f", {"a": 1})), verdict(), tags=evil)
    text = render_report(builder.write(), "csv")
    for line in text.splitlines():
        assert not line.startswith(("=", "+", "-", "@")), line
    rows = list(csv.reader(io.StringIO(text)))
    cells = [cell for row in rows for cell in row]
    assert not any("\r" in c or "\n" in c or "\u2028" in c for c in cells)
    assert any(c.startswith("x =HYPERLINK") for c in cells), cells
