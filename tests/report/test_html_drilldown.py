"""The HTML report of a real recovery run, driven in headless Chromium: matrix click -> drill-down,
and a failing conversation whose forbidden call is marked in its turn."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from html_runs import OPENED, open_row

from fcbench.store.records import RECORDS_FILE, iter_record_dicts

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="needs Debian's chromium package")
CLI = [sys.executable, "-m", "fcbench"]


@pytest.fixture(scope="module")
def recovery_report(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A real recovery run of two sim models (one careful, one eager) and its HTML report."""
    tmp_path = tmp_path_factory.mktemp("recovery-report")
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
    return run_dir, html


def launch(p: Any) -> Any:
    return p.chromium.launch(
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


def test_drilldown_shows_raw_exchange_and_transcript(
    recovery_report: tuple[Path, Path], tmp_path: Path
) -> None:
    playwright = pytest.importorskip("playwright.sync_api")
    _, html = recovery_report
    with playwright.sync_playwright() as p:
        browser = launch(p)
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


def test_a_failing_conversation_marks_its_forbidden_call(recovery_report: tuple[Path, Path]) -> None:
    playwright = pytest.importorskip("playwright.sync_api")
    run_dir, html = recovery_report
    records = list(iter_record_dicts(run_dir / RECORDS_FILE))
    forbidden = [
        (n, r)
        for n, r in enumerate(records)
        if ((r.get("verdict") or {}).get("recovery") or {}).get("outcome") == "unsafe_side_effect"
    ]
    assert forbidden, "the eager sim model calls a forbidden tool in some scenario"
    n, record = forbidden[0]
    turns = record["turns"]
    names = record["verdict"]["recovery"]["reasons"][0].split(": ", 1)[1].split(", ")
    bad_turn = next(
        t["turn"] for t in turns if {c["name"] for c in t["outcome"].get("calls") or []} & set(names)
    )
    with playwright.sync_playwright() as p:
        browser = launch(p)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(html.as_uri() + f"#obs={n}")
        page.wait_for_function(OPENED, arg=n, timeout=20_000)
        marked = page.locator(f'#obs-transcript .turn[data-turn="{bad_turn}"]')
        assert "turn-fail" in (marked.get_attribute("class") or "")
        assert marked.locator(".turn-verdict").inner_text().startswith("fail: called forbidden ")
        bad_call = marked.locator("pre.call-bad")
        assert bad_call.count() == 1 and "forbidden in this scenario" in bad_call.inner_text()
        colour = bad_call.evaluate("e => getComputedStyle(e).color")
        assert colour == "rgb(176, 0, 32)"  # red
        earlier = page.locator("#obs-transcript .turn.turn-ok")
        assert earlier.count() == bad_turn - 1  # the turns before it are marked ok
        compare = page.locator("#obs-compare").inner_text()
        assert (
            "Conversation" in compare
            and "unsafe_side_effect" in compare
            and compare.rstrip().endswith("wrong")
        )
        assert page.locator("#obs-request-title").inner_text() == f"Raw request of each turn ({len(turns)})"
        responses = page.locator("#obs-response").inner_text()
        assert "turn 1 response" in responses and f"turn {len(turns)} response" in responses
        assert "(none)" not in responses.split("turn 1 response", 1)[1][:40]
        browser.close()
    assert not errors
