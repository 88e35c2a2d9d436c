"""The self-contained HTML report: offline, no chart library, escaped, every observation embedded,
and rendering in a real browser."""

from __future__ import annotations

import base64
import gzip
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from records_builder import RunBuilder, call_outcome, text_outcome, verdict
from sample_runs import EVIL, mixed_run

from fcbench.report import html_data
from fcbench.report.html import render_html
from fcbench.report.html_data import data_block, json_for_script

CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    run = mixed_run(tmp_path_factory.mktemp("html") / "run")
    html = render_html(run)
    path = run / "report.html"
    path.write_text(html, encoding="utf-8")
    return path, html


def embedded(html: str, element_id: str) -> Any:
    """A data block of the page, plain or gzip + base64."""
    match = re.search(rf'<script type="([^"]+)" id="{element_id}">(.*?)</script>', html, re.S)
    assert match, element_id
    if match.group(1) == "application/json":
        return json.loads(match.group(2))
    assert match.group(1) == "application/octet-stream"
    return json.loads(gzip.decompress(base64.b64decode(match.group(2))))


def test_page_is_self_contained_and_small(page: tuple[Path, str]) -> None:
    _, html = page
    external = re.findall(
        r"<(?:script|link|img|iframe)\b[^>]*\b(?:src|href)\s*=\s*[\"']?(?:https?:)?//", html, re.I
    )
    assert external == []
    assert "<script src" not in html.lower()
    assert "plotly" not in html.lower()
    assert html.count('<svg class="rates-chart"') == 1 and html.count('<svg class="heatmap"') == 2
    assert len(html) < 200_000  # no chart library inlined


def test_page_has_stable_hooks(page: tuple[Path, str]) -> None:
    _, html = page
    for hook in (
        'id="charts"',
        'id="confusion"',
        'id="matrix-table"',
        'id="drilldown"',
        'id="obs-compare"',
        'id="obs-transcript"',
        'id="summary"',
        *(f'id="filter-{name}"' for name in ("target", "mode", "category", "tag", "decision", "anomaly")),
        'id="filter-result"',
        'id="filter-q"',
    ):
        assert hook in html, hook
    matrix = embedded(html, "report-data")["matrix"]
    assert matrix["columns"] == ["mock:alpha", "mock:beta"]
    cells = {(row[0], i): cell for row in matrix["rows"] for i, cell in enumerate(row[3])}
    assert cells[("lookup | exact", 0)] == [3, 3, 0] and cells[("types-01", 1)] == [2, 3, 0]
    assert cells[("lost-01", 0)] == [0, 0, 3]
    assert matrix["rows"][0][0] == "abstain-01"  # worst first


def test_chart_draws_every_rate_with_its_interval(page: tuple[Path, str]) -> None:
    _, html = page
    chart = html.split('<svg class="rates-chart"', 1)[1].split("</svg>", 1)[0]
    for title in ("Pass", "Decision", "Schema-valid", "Exact args"):
        assert f">{title}</text>" in chart
    assert chart.count('class="ci"') == 2 * 3  # exact args were never measured: no bar, no interval
    assert "mock:alpha · Pass: 55.6% (5/9)" in chart


def test_untrusted_text_is_escaped(page: tuple[Path, str]) -> None:
    _, html = page
    assert EVIL not in html
    assert "<img src=x" not in html
    assert 'setAttribute("data-pwned"' not in html
    observations = embedded(html, "obs-data")
    hostile = [o for o in observations if o["case_id"] == "abstain-01"]
    assert hostile and hostile[0]["outcome"]["calls"][0]["arguments"] == {"note": EVIL}
    assert hostile[0]["response"] == {"content": EVIL}
    assert EVIL in embedded(html, "case-data")["abstain-01"]["prompt"]


def test_json_for_script_cannot_close_the_block() -> None:
    text = json.dumps({"x": "</script><!-- & \u2028"})
    safe = json_for_script(text)
    assert "</" not in safe and "<!--" not in safe and "&" not in safe
    assert json.loads(safe) == {"x": "</script><!-- & \u2028"}


def test_large_blocks_are_compressed_and_small_ones_stay_plain() -> None:
    value = [{"text": f"</script> row {i}"} for i in range(20_000)]
    big = data_block("obs-data", value)
    assert big.mime == "application/octet-stream" and "<" not in big.payload
    assert json.loads(gzip.decompress(base64.b64decode(big.payload))) == value
    small = data_block("obs-data", value[:3])
    assert small.mime == "application/json" and json.loads(small.payload) == value[:3]


def test_every_observation_is_embedded(tmp_path: Path) -> None:
    b = RunBuilder(tmp_path, repeats=1)
    for i in range(3000):
        b.add(f"pass-{i}", call_outcome(("f", {})), verdict())
        b.add(f"fail-{i}", text_outcome("no"), verdict("missed_call"))
    html = render_html(b.write())
    observations = embedded(html, "obs-data")
    assert [o["n"] for o in observations] == list(range(6000))
    assert {o["result"] for o in observations if o["case_id"].startswith("fail-")} == {"fail"}
    assert re.search(r'<script type="application/octet-stream" id="obs-data">', html)


def test_raw_bodies_over_the_limit_are_left_out_with_a_note(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    b = RunBuilder(tmp_path / "run-big-raw", repeats=1)
    b.add("c1", call_outcome(("f", {})), verdict(), raw={"request": {"tools": ["x" * 400]}, "response": {}})
    monkeypatch.setattr(html_data, "MAX_RAW_COMPRESSED_BYTES", 10)
    html = render_html(b.write())
    assert 'id="raw-data"' not in html
    note = embedded(html, "report-data")["raw_note"]
    assert "fcbench show run-big-raw --raw" in note and "fcbench view" in note
    assert embedded(html, "obs-data")[0]["request"] is None


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")
def test_page_renders_in_headless_chromium(page: tuple[Path, str], tmp_path: Path) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    path, _ = page
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        tab = browser.new_page(viewport={"width": 1280, "height": 2000})
        errors: list[str] = []
        tab.on("pageerror", lambda exc: errors.append(str(exc)))
        tab.goto(path.as_uri())
        tab.wait_for_function("window.fcbenchObservationsReady !== undefined", timeout=20_000)
        cells = tab.locator("#matrix-table td.matrix-cell[data-case]")
        assert cells.count() == 4 * 2
        texts = cells.all_text_contents()
        assert "2/3" in texts and "3/3" in texts and "err 3" in texts
        assert tab.locator("#obs-table tr.obs-row").count() == 4 * 3 * 2  # every observation, errors included
        assert tab.locator("#charts svg.rates-chart rect").count() >= 6
        assert tab.evaluate("document.body.getAttribute('data-pwned')") is None
        tab.screenshot(path=str(tmp_path / "report.png"), full_page=True)
        browser.close()
    assert not errors
    assert (tmp_path / "report.png").stat().st_size > 10_000
