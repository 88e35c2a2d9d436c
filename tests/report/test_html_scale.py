"""The static HTML report of a 10,000-observation run, driven in headless Chromium: it loads fast,
holds every observation, opens passes and failures with expected and actual side by side, narrows
the list with filters and search, and restores views from deep links."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from html_runs import CHROMIUM, OPENED, chromium, open_row, scale_run

from fcbench.report.html import render_html
from fcbench.store.records import RECORDS_FILE, iter_record_dicts

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")
N = 10_000


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]]]:
    run = scale_run(tmp_path_factory.mktemp("html-scale") / "run-10k", N)
    start = time.perf_counter()
    html = render_html(run)
    seconds = time.perf_counter() - start
    path = run / "report.html"
    path.write_text(html, encoding="utf-8")
    size = path.stat().st_size
    print(f"\n10k-observation report: generated in {seconds:.2f} s, {size / 2**20:.2f} MiB")
    assert size < 4 * 2**20
    return path, list(iter_record_dicts(run / RECORDS_FILE))


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as instance:
        yield instance


def open_page(browser: Any, url: str) -> tuple[Any, list[str]]:
    tab = browser.new_page(viewport={"width": 1400, "height": 1600})
    errors: list[str] = []
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    tab.goto(url)
    tab.wait_for_function("window.fcbenchObservationsReady !== undefined", timeout=30_000)
    return tab, errors


def count_of(tab: Any) -> int:
    text = tab.locator("#obs-count").text_content() or ""
    assert "matching" in text, text
    return int(text.split()[0])


def settle(tab: Any) -> None:
    tab.wait_for_function("document.getElementById('obs-count').textContent.indexOf('Loading') < 0")


def test_loads_fast_with_every_observation(big: tuple[Path, list[dict[str, Any]]], browser: Any) -> None:
    path, _ = big
    tab, errors = open_page(browser, path.as_uri())
    ready, loaded = tab.evaluate("[window.fcbenchReady, window.fcbenchObservationsReady]")
    print(f"\nmatrix rendered {ready:.0f} ms after navigation; observations decoded at {loaded:.0f} ms")
    assert ready > 0 and loaded >= ready  # how fast is benchmarks/html_report.py's question
    assert count_of(tab) == N
    assert tab.locator("#obs-table tr.obs-row").count() == 200  # a window of rows, never all
    assert tab.locator("#matrix-table td.matrix-cell[data-case]").count() > 1000
    tab.screenshot(path=str(path.parent / "loaded.png"))
    assert not errors


def open_first(tab: Any, result: str, records: list[dict[str, Any]]) -> tuple[dict[str, Any], str]:
    """Filter to ``result``, open the first observation listed: its record and the expected x actual table."""
    tab.select_option("#filter-result", result)
    settle(tab)
    n = open_row(tab, tab.locator("#obs-table tr.obs-row").first)
    assert f" · {result} · " in (tab.locator("#obs-title").text_content() or "")
    return records[n], tab.locator("#obs-compare").inner_text()


def test_a_failure_and_a_pass_open_with_expected_and_actual(
    big: tuple[Path, list[dict[str, Any]]], browser: Any, tmp_path: Path
) -> None:
    path, records = big
    tab, errors = open_page(browser, path.as_uri())
    tab.select_option("#filter-decision", "correct_call")
    failed, compare = open_first(tab, "fail", records)
    assert failed["verdict"]["passed"] is False
    weight = failed["case"]["prompt"].split("weighs ")[1].split()[0]
    assert f"weight_grams\t{weight}\t" in compare and ("wrong" in compare or "missing" in compare)
    assert "Tool\ttool_1\ttool_1\tok" in compare
    reasons = tab.locator("#obs-reasons").inner_text()
    assert reasons and reasons != "(none)"
    assert '"tools"' in (tab.locator("#obs-request").text_content() or "")
    tab.locator("#obs-detail").screenshot(path=str(tmp_path / "failure.png"))

    passed, compare = open_first(tab, "pass", records)
    assert passed["verdict"]["passed"] is True
    args = passed["outcome"]["calls"][0]["arguments"]
    assert f'order_id\t"{args["order_id"]}"\t"{args["order_id"]}"\tok' in compare  # expected: from the suite
    assert f"weight_grams\t{args['weight_grams']}\t{args['weight_grams']}\tok" in compare
    tab.locator("#obs-detail").screenshot(path=str(tmp_path / "pass.png"))
    assert not errors


def test_filters_and_search_narrow_the_list(big: tuple[Path, list[dict[str, Any]]], browser: Any) -> None:
    path, records = big
    tab, errors = open_page(browser, path.as_uri())
    tab.select_option("#filter-decision", "wrong_tool")
    settle(tab)
    wrong_tool = count_of(tab)
    assert wrong_tool == sum(1 for r in records if (r.get("verdict") or {}).get("decision") == "wrong_tool")
    assert 0 < wrong_tool < N
    tab.select_option("#filter-decision", "")
    odd = next(r for r in records if r["anomalies"])
    order_id = "ORD-00" + odd["case_id"].split("-")[1]
    tab.fill("#filter-q", order_id)
    settle(tab)
    assert count_of(tab) == sum(1 for r in records if r["case_id"] == odd["case_id"])
    assert f"q={order_id}" in tab.url  # the view is in the address
    tab.select_option("#filter-anomaly", "json_call_in_text")
    settle(tab)
    with_code = [r for r in records if r["case_id"] == odd["case_id"] and r["anomalies"]]
    assert count_of(tab) == len(with_code) > 0
    assert not errors


def test_deep_links_restore_the_view(
    big: tuple[Path, list[dict[str, Any]]], browser: Any, tmp_path: Path
) -> None:
    path, records = big
    tab, errors = open_page(browser, path.as_uri() + "#obs=4321")
    tab.wait_for_function(OPENED, arg=4321)
    title = tab.locator("#obs-title").text_content() or ""
    assert title.startswith("#4321 · " + records[4321]["case_id"] + " · ")
    assert json.dumps(records[4321]["outcome"]["kind"]) in (tab.locator("#obs-outcome").text_content() or "")
    tab.locator("#obs-detail").screenshot(path=str(tmp_path / "deep-link.png"))

    green = next(
        r for r in records if r["mode"] == "selection" and r["verdict"] and r["verdict"]["passed"] is True
    )
    label = f"{green['target']['endpoint']}:{green['target']['model']} [selection]"
    tab2, errors2 = open_page(browser, path.as_uri() + f"#case={green['case_id']}&target={label}")
    expected = sum(
        1
        for r in records
        if r["case_id"] == green["case_id"] and r["mode"] == "selection" and r["target"] == green["target"]
    )
    assert count_of(tab2) == expected > 0
    assert tab2.locator("#obs-detail").is_visible()
    assert tab2.locator(".matrix-cell.selected").count() == 1
    passed, scorable = (tab2.locator(".matrix-cell.selected").text_content() or "").split("/")
    assert 0 < int(passed) <= int(scorable) <= expected  # provider errors are observations, not scorable
    assert not errors and not errors2
