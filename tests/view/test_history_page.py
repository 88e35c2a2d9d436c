"""The history page of ``fcbench view``, in headless Chromium against a real server.

Three real runs of a target named ``prod-model`` on the embedded mock (sim-careful twice, then
sim-sloppy), a catalogue written by ``fcbench history --update-catalogue`` and annotated by hand:
the page draws one series with three points, marks the model change and the drop, links each
point to its run, and lists the catalogue's patterns with the annotation.
"""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_run import fcbench
from html_runs import CHROMIUM, chromium, running_view

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")

CASES = ("types-01", "args-limit-01", "select-lookup-01", "abstain-01")
NAME = "prod-model"
TITLE = "Sloppy model drops required keys"


def _run_as_prod(root: Path, model: str) -> None:
    config = root / f"{model}.yaml"
    config.write_text(f"targets:\n  - name: {NAME}\n    target: sim:{model}\nrepeats: 1\n", encoding="utf-8")
    args = ["run", "-c", str(config), "--out", "runs", "--no-progress", "--min-coverage", "0"]
    made = fcbench(*args, *(a for case in CASES for a in ("--case", case)), cwd=root)
    assert made.returncode in (0, 1), made.stdout + made.stderr


@pytest.fixture(scope="module")
def history_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("history-page")
    for model in ("sim-careful", "sim-careful", "sim-sloppy"):
        _run_as_prod(root, model)
    written = fcbench("history", "runs", "--update-catalogue", cwd=root)
    assert written.returncode == 0, written.stderr
    path = root / "runs" / "catalogue.json"
    catalogue = json.loads(path.read_text())
    sloppy = [p for p in catalogue["patterns"] if p["model"] == "sim-sloppy"]
    assert sloppy, catalogue["patterns"]
    sloppy[0]["title"], sloppy[0]["note"] = TITLE, "seen since the model swap"
    path.write_text(json.dumps(catalogue), encoding="utf-8")
    return root / "runs"


@pytest.fixture(scope="module")
def url(history_root: Path) -> Iterator[str]:
    with running_view(history_root) as address:
        yield address


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as instance:
        yield instance


def test_the_page_shows_the_series_the_model_change_and_the_catalogue(
    url: str, browser: Any, tmp_path: Path
) -> None:
    tab = browser.new_page(viewport={"width": 1300, "height": 1400})
    errors: list[str] = []
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    tab.goto(url + "/")
    tab.locator("#history-link").click()
    tab.wait_for_selector("section.history-series")
    series = tab.locator(f'section.history-series[data-name="{NAME}"]')
    assert series.count() == 1
    assert series.locator("svg.rate-chart circle.rate").count() == 3
    assert series.locator("svg.rate-chart line.change").count() == 1
    assert "model sim-careful -> sim-sloppy" in (series.locator("text.change-label").text_content() or "")
    rows = series.locator("tr.history-point")
    assert rows.count() == 3
    changed = series.locator("tr.model-changed")
    assert changed.count() == 1
    assert "model changed: sim-careful -> sim-sloppy" in changed.inner_text()
    assert changed.locator(".drop").count() >= 2  # the model change and the negative change
    assert f"100.0% ({len(CASES)}/{len(CASES)})" in rows.first.inner_text()
    pattern = tab.locator("#catalogue tr.pattern", has_text=TITLE)
    assert pattern.count() == 1 and "seen since the model swap" in pattern.inner_text()
    tab.screenshot(path=str(tmp_path / "history-page.png"), full_page=True)
    changed.locator("a").click()
    tab.wait_for_function("window.fcbenchObservationsReady !== undefined", timeout=30_000)
    assert "/runs/" in tab.url
    assert not errors


def test_the_api_gives_what_the_cli_prints(url: str, history_root: Path) -> None:
    with urllib.request.urlopen(url + f"/api/history?target={NAME}", timeout=30) as answer:
        served = json.loads(answer.read())
    printed = fcbench("history", str(history_root), "--target", NAME, "-f", "json")
    assert printed.returncode == 0, printed.stderr
    assert served == json.loads(printed.stdout)
    with urllib.request.urlopen(url + "/history?target=nobody", timeout=30) as answer:
        assert "No runs with observations of nobody" in answer.read().decode()


def test_each_failure_type_is_drawn_over_the_runs_with_the_model_change(url: str, browser: Any) -> None:
    tab = browser.new_page(viewport={"width": 1300, "height": 1400})
    tab.goto(url + f"/history?target={NAME}")
    chart = tab.locator(f'section.history-series[data-name="{NAME}"] svg.failure-chart')
    assert chart.count() == 1
    assert chart.locator("line.change").count() == 1  # the model change, as on the pass-rate chart
    lines = chart.locator("polyline.kind")
    kinds = [lines.nth(i).get_attribute("data-kind") for i in range(lines.count())]
    assert kinds and kinds == sorted(kinds)
    baseline = float(chart.locator("line.axis").nth(1).get_attribute("y1") or "nan")
    # sim-careful passes all four cases twice, so every type starts at 0; the sloppy run has some
    risen = []
    for i in range(lines.count()):
        points = (lines.nth(i).get_attribute("points") or "").split()
        ys = [float(point.split(",")[1]) for point in points]
        assert len(ys) == 3 and ys[0] == ys[1] == baseline
        risen.append(ys[2] < baseline)
    assert any(risen)


def test_the_catalogue_filters_and_counts_and_follows_the_target(
    url: str, browser: Any, history_root: Path
) -> None:
    tab = browser.new_page(viewport={"width": 1300, "height": 1400})
    tab.goto(url + "/history")
    rows = tab.locator("#catalogue tr.pattern")
    total = rows.count()
    sloppy = tab.locator('#catalogue tr.pattern[data-model="sim-sloppy"]').count()
    assert 0 < sloppy <= total
    tab.fill("#catalogue-filter", "sim-sloppy")
    tab.wait_for_function(
        f"document.getElementById('catalogue-count').textContent === '{sloppy} of {total} patterns'"
    )
    assert tab.locator("#catalogue tr.pattern:not([hidden])").count() == sloppy
    with urllib.request.urlopen(url + "/history?target=nobody", timeout=30) as answer:
        page = answer.read().decode()
    assert "0 of 0 patterns" in page and 'class="pattern"' not in page
