"""The static HTML report of a 10,000-observation run, driven in headless Chromium: it loads fast,
holds every observation, opens passes and failures with expected and actual side by side, narrows
the list with filters and search, and restores views from deep links."""

from __future__ import annotations

import base64
import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from html_runs import CHROMIUM, OPENED, chromium, open_row, scale_run

from fcbench.report import html_data
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
    tab.wait_for_function("q => location.hash.indexOf('q=' + q) >= 0", arg=order_id)  # applied after a pause
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


SMALL = 4000


@pytest.fixture(scope="module")
def small_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return scale_run(tmp_path_factory.mktemp("html-budget") / "run-budget", SMALL)


def detail_of(run: Path, budget: int) -> tuple[list[dict[str, Any]], html_data.EmbeddedDetail]:
    _, collector = html_data.collect(run)
    pairs, _ = html_data.raw_pairs(run)
    return collector.rows, html_data.detail_blocks(collector.rows, pairs, budget)


def test_detail_of_passes_is_left_out_first_then_the_oldest_repeats(small_run: Path) -> None:
    rows, whole = detail_of(small_run, 1 << 40)
    assert whole.left_out == 0 and not any(r.get("left_out") for r in rows)
    assert {b.element_id for b in whole.blocks} == {"obs-data", "obs-values", "raw-data"}
    passes = sum(1 for r in rows if r["result"] == "pass")
    rows, fewer = detail_of(small_run, whole.compressed_bytes - 1)
    assert fewer.left_out == passes and fewer.compressed_bytes <= whole.compressed_bytes - 1
    assert all(r.get("left_out") is (True if r["result"] == "pass" else None) for r in rows)
    assert all(r["outcome"] is None and r["request"] is None for r in rows if r["result"] == "pass")
    assert all(r["outcome"] is not None for r in rows if r["result"] != "pass")
    budget = fewer.compressed_bytes * 2 // 3
    rows, tight = detail_of(small_run, budget)
    assert tight.compressed_bytes <= budget and passes < tight.left_out < len(rows)
    others = [r for r in rows if r["result"] != "pass"]
    dropped = max(r["repeat"] for r in others if r.get("left_out"))
    assert all(r.get("left_out") for r in others if r["repeat"] < dropped)  # oldest repeats first
    assert len(rows) == SMALL and [r["n"] for r in rows] == list(range(SMALL))  # every summary row kept


def test_repeats_store_their_values_once(small_run: Path) -> None:
    rows, detail = detail_of(small_run, 1 << 40)
    packed, values = html_data.interned_rows(rows)
    outcomes = {html_data.dumps(r["outcome"]) for r in rows}
    assert len(outcomes) < len(rows) / 2 and len({p["outcome"] for p in packed}) == len(outcomes)
    assert len(values) < len(rows) * len(html_data.DETAIL_FIELDS) / 4
    assert all(values[p["verdict"]] == r["verdict"] for p, r in zip(packed, rows, strict=True))


def test_a_page_over_its_budget_says_what_it_left_out(small_run: Path, browser: Any, tmp_path: Path) -> None:
    _, fewer = detail_of(small_run, 1 << 40)
    budget = fewer.compressed_bytes // 3
    page = tmp_path / "report.html"
    page.write_text(render_html(small_run, detail_budget=budget), encoding="utf-8")
    compressed = sum(
        len(base64.b64decode(block))
        for block in re.findall(
            r'type="application/octet-stream" id="(?:obs-data|obs-values|raw-data)">(.*?)<', page.read_text()
        )
    )
    assert compressed <= budget
    records = list(iter_record_dicts(small_run / RECORDS_FILE))
    tab, errors = open_page(browser, page.as_uri())
    assert count_of(tab) == SMALL  # every observation is still listed and counted
    note = tab.locator("#raw-note").inner_text()
    assert "left out of this page" in note and "fcbench view run-budget" in note
    left_out = int(note.split(" of ", 1)[1].split()[0])
    assert sum(1 for r in records if (r.get("verdict") or {}).get("passed") is True) < left_out < SMALL
    passing = next(i for i, r in enumerate(records) if (r.get("verdict") or {}).get("passed") is True)
    tab.goto(page.as_uri() + f"#obs={passing}")
    tab.wait_for_function(OPENED, arg=passing)
    assert "left out of this page" in (tab.locator("#obs-outcome").text_content() or "")
    assert "fcbench view run-budget" in (tab.locator("#obs-request").text_content() or "")
    last = max(i for i, r in enumerate(records) if r["verdict"] and r["verdict"]["passed"] is False)
    tab.goto(page.as_uri() + f"#obs={last}")
    tab.wait_for_function(OPENED, arg=last)  # the newest repeat of a failure keeps its detail
    assert json.dumps(records[last]["outcome"]["kind"]) in (tab.locator("#obs-outcome").text_content() or "")
    assert '"tools"' in (tab.locator("#obs-request").text_content() or "")
    tab.select_option("#filter-result", "fail")
    settle(tab)
    assert count_of(tab) == sum(1 for r in records if r["verdict"] and r["verdict"]["passed"] is False)
    assert not errors


def test_the_search_box_waits_for_the_typing_to_stop(small_run: Path, browser: Any, tmp_path: Path) -> None:
    page = tmp_path / "report.html"
    page.write_text(render_html(small_run), encoding="utf-8")
    tab, errors = open_page(browser, page.as_uri())
    tab.evaluate("window.history.replaceState(null, '', location.pathname)")
    typed = tab.evaluate(
        """text => { var box = document.getElementById('filter-q');
        for (var i = 1; i <= text.length; i += 1) {
          box.value = text.slice(0, i); box.dispatchEvent(new Event('input'));
        }
        return location.hash; }""",
        "ORD-000",
    )
    assert "q=" not in typed  # seven keys, nothing applied yet
    tab.wait_for_function("location.hash.indexOf('q=ORD-000') >= 0")
    settle(tab)
    assert count_of(tab) == SMALL  # every order id starts with it
    assert not errors
