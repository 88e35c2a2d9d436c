"""The self-contained HTML report: offline, escaped, bounded, and rendering in a real browser."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from records_builder import RunBuilder, call_outcome, text_outcome, verdict
from sample_runs import EVIL, mixed_run

from fcbench.report.html import json_for_script, render_html

CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    run = mixed_run(tmp_path_factory.mktemp("html") / "run")
    html = render_html(run)
    path = run / "report.html"
    path.write_text(html, encoding="utf-8")
    return path, html


def embedded(html: str, element_id: str) -> object:
    match = re.search(rf'<script type="application/json" id="{element_id}">(.*?)</script>', html, re.S)
    assert match, element_id
    return json.loads(match.group(1))


def test_page_is_self_contained(page: tuple[Path, str]) -> None:
    _, html = page
    external = re.findall(
        r"<(?:script|link|img|iframe)\b[^>]*\b(?:src|href)\s*=\s*[\"']?(?:https?:)?//", html, re.I
    )
    assert external == []
    assert "<script src" not in html.lower()
    assert "Plotly.newPlot" in html
    assert len(html) > 1_000_000  # plotly.js itself is inlined


def test_page_has_stable_hooks(page: tuple[Path, str]) -> None:
    _, html = page
    for hook in (
        'id="charts"',
        'id="confusion"',
        'id="matrix"',
        'class="matrix-cell"',
        'id="drilldown"',
        'id="filter-target"',
        'id="filter-category"',
        'id="filter-tag"',
        'id="filter-decision"',
        'id="summary"',
    ):
        assert hook in html, hook
    matrix = html.split('id="matrix-table"', 1)[1].split("</table>", 1)[0]
    assert matrix.count('class="matrix-cell"') == 4 * 2
    assert ">2/3<" in matrix and ">3/3<" in matrix and ">err 3<" in matrix


def test_untrusted_text_is_escaped(page: tuple[Path, str]) -> None:
    _, html = page
    assert EVIL not in html
    assert "<img src=x" not in html
    assert 'setAttribute("data-pwned"' not in html
    observations = embedded(html, "obs-data")
    assert isinstance(observations, list)
    hostile = [o for o in observations if o["case_id"] == "abstain-01"]
    assert hostile and EVIL in hostile[0]["prompt"]
    assert json.loads(hostile[0]["response"]) == {"content": EVIL}


def test_json_for_script_cannot_close_the_block() -> None:
    text = json.dumps({"x": "</script><!-- & \u2028"})
    safe = json_for_script(text)
    assert "</" not in safe and "<!--" not in safe and "&" not in safe
    assert json.loads(safe) == {"x": "</script><!-- & \u2028"}


def test_drilldown_is_bounded_and_prefers_failures(tmp_path: Path) -> None:
    b = RunBuilder(tmp_path, repeats=1)
    for i in range(10):
        b.add(f"pass-{i}", call_outcome(("f", {})), verdict())
        b.add(f"fail-{i}", text_outcome("no"), verdict("missed_call"))
    html = render_html(b.write(), max_observations=5)
    observations = embedded(html, "obs-data")
    assert isinstance(observations, list) and len(observations) == 5
    assert all(o["case_id"].startswith("fail-") for o in observations)
    assert "Showing 5 of 20 observations" in html
    everything = embedded(render_html(tmp_path), "obs-data")
    assert isinstance(everything, list) and len(everything) == 20


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")
def test_page_renders_in_headless_chromium(page: tuple[Path, str], tmp_path: Path) -> None:
    path, _ = page
    assert CHROMIUM is not None
    base = [
        CHROMIUM,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        f"--user-data-dir={tmp_path / 'profile'}",
        "--virtual-time-budget=10000",
    ]
    dom = subprocess.run(
        [*base, "--dump-dom", path.as_uri()], capture_output=True, text=True, timeout=120, check=True
    ).stdout
    assert "main-svg" in dom, "plotly did not render the charts"
    assert dom.count('class="obs-row"') == 4 * 3 * 2  # every observation, errors included
    assert "data-pwned" not in dom.split("<body", 1)[1].split(">", 1)[0]
    shot = tmp_path / "report.png"
    subprocess.run(
        [*base, "--window-size=1280,2000", f"--screenshot={shot}", path.as_uri()],
        capture_output=True,
        timeout=120,
        check=True,
    )
    assert shot.stat().st_size > 10_000
