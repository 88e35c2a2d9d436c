"""The HTML report of a real recovery run, driven in headless Chromium: matrix click -> drill-down."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from html_runs import open_row

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="needs Debian's chromium package")
CLI = [sys.executable, "-m", "fcbench"]


def test_drilldown_shows_raw_exchange_and_transcript(tmp_path: Path) -> None:
    playwright = pytest.importorskip("playwright.sync_api")
    run = subprocess.run(
        [
            *CLI,
            "run",
            "--no-progress",
            "--mode",
            "recovery",
            "--repeats",
            "1",
            "--target",
            "sim:sim-careful",
            "--target",
            "sim-gemini:sim-eager",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert run.returncode in (0, 1), run.stderr  # 1: the run's gate failed (sim-eager makes unsafe writes)
    run_dir = next((tmp_path / "runs").iterdir())
    html = tmp_path / "report.html"
    made = subprocess.run(
        [*CLI, "report", str(run_dir), "--format", "html", "-o", str(html)],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert made.returncode == 0, made.stderr

    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-sync",
                "--disable-component-update",
                "--no-first-run",
            ],
        )
        page = browser.new_page(viewport={"width": 1280, "height": 1800})
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(html.as_uri())
        page.wait_for_selector("#charts svg.rates-chart", timeout=20_000)
        page.wait_for_function("window.fcbenchObservationsReady !== undefined", timeout=20_000)
        cells = page.locator("#matrix-table td.matrix-cell[data-case]")
        assert cells.count() >= 2
        cells.first.click()
        assert page.locator(".matrix-cell.selected").count() == 1
        rows = page.locator("#obs-table tr.obs-row")
        assert rows.count() >= 1
        open_row(page, rows.first)
        detail = page.locator("#obs-detail")
        assert detail.is_visible()
        request = page.locator("#obs-request").text_content() or ""
        transcript = page.locator("#obs-transcript").text_content() or ""
        assert "$blob" not in request and '"model"' in request
        assert "Turn 1" in transcript and "tool" in transcript
        assert page.locator("#obs-compare tbody tr").count() >= 1
        page.screenshot(path=str(tmp_path / "drilldown.png"), full_page=False)
        browser.close()
    assert not errors
    assert (tmp_path / "drilldown.png").stat().st_size > 10_000
