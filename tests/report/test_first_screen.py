"""The HTML report's first screen, filters and one observation's own view, driven in headless
Chromium: targets ranked by pass rate with intervals and a failure bar each, fitting 1,280 px;
filters that narrow every part of the page and say so in their counts, kept in the address; a
permalink that opens its observation at the top, with previous / next within the filter."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from html_runs import CHROMIUM, OPENED, chromium, scale_run
from records_builder import RunBuilder, call_outcome, error_outcome, text_outcome, verdict

from fcbench.metrics.stats import wilson_interval
from fcbench.report.html import render_html
from fcbench.store.records import RECORDS_FILE, iter_record_dicts, read_manifest, write_manifest

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")
CASES = 60
STRONG, MID, WEAK = ("mock", "strong-model-with-a-rather-long-name"), ("mock", "mid"), ("mock", "weak")
PROD = "production-assistant-primary"
"""The config name of STRONG (the others have none)."""


def outcome_of(target: tuple[str, str], i: int, r: int) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """Outcome and verdict of case ``i``, repeat ``r`` for ``target`` (see the module's run)."""
    good = call_outcome(("lookup", {"id": i}))
    if target == STRONG:
        if (i, r) == (0, 0):
            return call_outcome(("other", {"id": i})), verdict("wrong_tool")
        if (i, r) == (1, 0):
            return good, verdict("correct_call", False, schema_valid=False, semantic_exact=False)
        return good, verdict()
    if target == MID:
        if i % 5 == 0:
            return text_outcome("no"), verdict("missed_call")
        if i % 5 == 1 and r == 0:
            return good, verdict("correct_call", False, semantic_exact=False, missing=["id"])
        if i % 7 == 3 and r == 1:
            return error_outcome("rate_limited", 429), None
        return good, verdict()
    if i % 3 == 0 and r == 0:
        return error_outcome("schema_rejected", 400), None
    if i % 2 == 0:
        return call_outcome(("cancel", {"id": i})), verdict("unexpected_call")
    return good, verdict()


def ranking_run(run_dir: Path) -> Path:
    """Three targets over 60 cases x 2 repeats: STRONG (named PROD) best, then MID, then WEAK."""
    targets = [WEAK, STRONG, MID]
    b = RunBuilder(run_dir, targets=targets, repeats=2)
    for target in targets:
        for i in range(CASES):
            for r in range(2):
                outcome, verdict_ = outcome_of(target, i, r)
                b.add(
                    f"case-{i:02d}",
                    outcome,
                    verdict_,
                    target=target,
                    repeat=r,
                    category=["normal", "boundary"][i % 2],
                    tags=[f"t{i % 3}"],
                    latency_ms=100.0 + 37 * i + 900 * r,
                )
    b.write()
    manifest = read_manifest(run_dir)
    pinned = [t.model_copy(update={"name": PROD}) if t.model == STRONG[1] else t for t in manifest.targets]
    write_manifest(run_dir, manifest.model_copy(update={"targets": pinned}))
    return run_dir


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]]]:
    run = ranking_run(tmp_path_factory.mktemp("first-screen") / "run")
    path = run / "report.html"
    path.write_text(render_html(run), encoding="utf-8")
    return path, list(iter_record_dicts(run / RECORDS_FILE))


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as instance:
        yield instance


def open_page(browser: Any, url: str, width: int = 1280) -> tuple[Any, list[str]]:
    tab = browser.new_page(viewport={"width": width, "height": 800})
    errors: list[str] = []
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    tab.goto(url)
    tab.wait_for_function("window.fcbenchObservationsReady !== undefined", timeout=30_000)
    settle(tab)
    return tab, errors


def settle(tab: Any) -> None:
    tab.wait_for_function("document.getElementById('obs-count').textContent.indexOf('Loading') < 0")


def label(target: tuple[str, str]) -> str:
    return f"{target[0]}:{target[1]}"


def interval(n: int, d: int) -> str:
    """The bracket of a rate's Wilson 95% interval as the report prints it."""
    low, high = wilson_interval(n, d) or (0.0, 0.0)
    return f"[{100 * low:.1f}–{100 * high:.1f}]"


def visible_text(tab: Any, selector: str) -> list[str]:
    return [t.strip() for t in tab.locator(selector).all_inner_texts()]


def test_first_screen_ranks_targets_and_fits_1280_px(
    report: tuple[Path, list[dict[str, Any]]], browser: Any
) -> None:
    path, _ = report
    tab, errors = open_page(browser, path.as_uri())
    width, inner = tab.evaluate("[document.scrollingElement.scrollWidth, innerWidth]")
    assert width <= inner == 1280
    rows = tab.locator("#ranking-table tr.rank-row")
    assert [r.get_attribute("data-target") for r in rows.all()] == [label(STRONG), label(MID), label(WEAK)]
    assert tab.locator("#ranking-table thead th").count() <= 8
    box = tab.locator("#ranking-table").bounding_box()
    assert box is not None and box["y"] + box["height"] <= 800  # the whole ranking on the first screen
    first = rows.nth(0).inner_text()
    assert f"{PROD} ({label(STRONG)})" in first and f"98.3% (118/120) {interval(118, 120)}" in first
    mid = rows.nth(1)
    assert "decision 24 (missed_call 24) · arguments 12 · coverage loss 7" in mid.inner_text()
    segments = {s.get_attribute("data-kind"): s.get_attribute("title") for s in mid.locator(".seg").all()}
    assert segments["decision: missed_call"] == "decision: missed_call: 24 of 120 observations (20.0%)"
    assert segments["pass"] == "pass: 77 of 120 observations (64.2%)"
    weak = rows.nth(2).inner_text()
    assert "acceptance 20" in weak and "decision 50 (unexpected_call 50)" in weak
    assert tab.locator("#summary-details").get_attribute("open") is None  # every other figure: one click away
    assert not errors


def test_the_config_name_is_used_in_every_view(
    report: tuple[Path, list[dict[str, Any]]], browser: Any
) -> None:
    path, _ = report
    html = path.read_text(encoding="utf-8")
    shown = f"{PROD} ({label(STRONG)})"
    summary = html.split('id="summary"', 1)[1].split("</table>", 1)[0]
    assert shown in summary
    assert f"{shown} · Pass:" in html.split('<svg class="rates-chart"', 1)[1]  # the chart
    assert f"<figcaption>{shown}</figcaption>" in html  # the decision heatmap
    assert shown in html.split('id="breakdown-table"', 1)[1].split("</thead>", 1)[0]
    tab, errors = open_page(browser, path.as_uri())
    assert shown in visible_text(tab, "#matrix-table thead th")
    assert shown in visible_text(tab, "#worst-table tbody tr td:nth-child(2)")
    assert shown in tab.locator("#filter-target option").all_text_contents()
    assert not errors


def test_a_filter_changes_every_count_and_lives_in_the_address(
    report: tuple[Path, list[dict[str, Any]]], browser: Any
) -> None:
    path, records = report
    tab, errors = open_page(browser, path.as_uri())
    assert (
        tab.locator("#filter-summary").inner_text() == "No filter: 360 of 360 observations, 60 of 60 cases."
    )
    worst_before = tab.locator("#worst-count").inner_text()
    assert worst_before.startswith("50 of ") and tab.locator("#worst-table tbody tr").count() == 50
    tab.select_option("#filter-target", label(MID))
    tab.select_option("#filter-failure", "decision: missed_call")
    settle(tab)
    missed = [
        r
        for r in records
        if r["target"]["model"] == MID[1] and (r["verdict"] or {}).get("decision") == "missed_call"
    ]
    cases = {r["case_id"] for r in missed}
    assert (
        tab.locator("#filter-summary").inner_text()
        == f"Filtered: {len(missed)} of 360 observations, {len(cases)} of 60 cases."
    )
    assert tab.locator("#matrix-count").inner_text() == f"{len(cases)} of 60 cases."
    assert tab.locator("#matrix-table tbody tr").count() == len(cases)
    assert (
        tab.locator("#worst-count").inner_text()
        == f"{len(cases)} of {len(cases)} failing case x target rows shown ("
        + worst_before.split(" of ")[1].split()[0]
        + " before the filters)."
    )
    assert int(tab.locator("#obs-count").inner_text().split()[0]) == len(missed)
    assert [
        r.get_attribute("data-target") for r in tab.locator("#ranking-table tr.rank-row:visible").all()
    ] == [label(MID)]
    assert tab.locator("#breakdown-table th[data-target]:visible").count() == 1
    assert "failure=decision" in tab.url and "target=mock" in tab.url
    again, errors2 = open_page(browser, tab.url)  # the address restores the view
    assert again.locator("#filter-summary").inner_text() == tab.locator("#filter-summary").inner_text()
    assert not errors and not errors2


def test_worst_first_then_any_column_sorts(report: tuple[Path, list[dict[str, Any]]], browser: Any) -> None:
    path, _ = report
    tab, errors = open_page(browser, path.as_uri())
    tab.locator("#worst-all").click()
    passed = [c.split("/") for c in visible_text(tab, "#worst-table tbody tr td:nth-child(5)")]
    keys = [(int(n) / int(d) if int(d) else 2.0, -int(d)) for n, d in passed]
    assert keys == sorted(keys) and len(keys) > 50  # pass rate up, then the most repeats first; no cap
    tab.locator("#worst-table th[data-key='0']").click()
    cases = visible_text(tab, "#worst-table tbody tr td:nth-child(1)")
    assert cases == sorted(cases)
    tab.locator("#ranking-table th", has_text="Latency p50").click()
    latencies = [
        float(c.replace(",", "")) for c in visible_text(tab, "#ranking-table tr.rank-row td:nth-child(6)")
    ]
    assert latencies == sorted(latencies)
    assert not errors


def listed(records: list[dict[str, Any]], model: str) -> list[int]:
    """The numbers of ``model``'s failing observations in the page's list order."""
    return [
        n
        for n, r in enumerate(records)
        if r["target"]["model"] == model and r["verdict"] and not r["verdict"]["passed"]
    ]


def test_a_permalink_opens_its_observation_at_the_top_with_next_and_previous(
    report: tuple[Path, list[dict[str, Any]]], browser: Any
) -> None:
    path, records = report
    failing = listed(records, MID[1])
    n = failing[1]
    tab, errors = open_page(browser, path.as_uri() + f"#target={label(MID)}&result=fail&obs={n}")
    tab.wait_for_function(OPENED, arg=n)
    top = tab.evaluate("document.getElementById('obs-view').getBoundingClientRect().top")
    assert abs(top) <= 2
    assert tab.locator("#obs-title").inner_text().startswith(f"#{n} · {records[n]['case_id']} · {label(MID)}")
    assert (
        tab.locator("#obs-position").inner_text() == f"Observation 2 of {len(failing)} in the current filter."
    )
    tab.locator("#obs-after").click()
    tab.wait_for_function(OPENED, arg=failing[2])
    assert f"obs={failing[2]}" in tab.url
    tab.locator("#obs-before").click()
    tab.locator("#obs-before").click()
    tab.wait_for_function(OPENED, arg=failing[0])
    assert tab.locator("#obs-before").is_disabled()
    assert re.match(rf"#{failing[0]} · ", tab.locator("#obs-title").inner_text())
    tab.locator("#obs-close").click()
    assert tab.locator("#obs-view").is_hidden() and "obs=" not in tab.url
    assert not errors


def test_failure_types_are_in_the_embedded_rows(report: tuple[Path, list[dict[str, Any]]]) -> None:
    path, records = report
    block = path.read_text(encoding="utf-8").split('id="obs-data">', 1)[1].split("</script>", 1)[0]
    rows = json.loads(block)
    kinds = {(r["target"], r["failure"]) for r in rows}
    assert (label(WEAK), "acceptance") in kinds and (label(MID), "coverage loss") in kinds
    assert (label(STRONG), "schema") in kinds and (label(MID), "arguments") in kinds
    assert all(r["failure"] is None for r in rows if r["result"] == "pass")
    assert len(rows) == len(records)


def test_breakdowns_show_rates_by_category_and_tag_and_latency(
    report: tuple[Path, list[dict[str, Any]]], browser: Any
) -> None:
    path, records = report
    tab, errors = open_page(browser, path.as_uri())
    mid_normal = [
        r
        for r in records
        if r["target"]["model"] == MID[1] and r["case"]["category"] == "normal" and r["verdict"] is not None
    ]
    passed = sum(1 for r in mid_normal if r["verdict"]["passed"])
    cell = tab.locator(f'#breakdown-table tr[data-category="normal"] td[data-target="{label(MID)}"]')
    assert cell.get_attribute(
        "title"
    ) == f"{100 * passed / len(mid_normal):.1f}% ({passed}/{len(mid_normal)}) " + interval(
        passed, len(mid_normal)
    )
    assert tab.locator("#breakdown-table tr[data-tag]").count() == 3
    tab.select_option("#filter-tag", "t1")
    settle(tab)
    assert tab.locator("#breakdown-table tbody tr:visible").count() == 1
    figure = tab.locator(f'.latency-fig[data-target="{label(WEAK)}"]')
    counts = [
        int(t.split(": ")[1].split()[0])
        for t in figure.locator(".hist-bin").evaluate_all("bs => bs.map(b => b.title)")
    ]
    answered = sum(1 for r in records if r["target"]["model"] == WEAK[1] and r["verdict"] is not None)
    assert sum(counts) == answered and counts[0] == 0  # nothing answered in 100 ms or less
    assert "p50" in figure.inner_text() and "cost per pass" in figure.inner_text()
    assert not errors


def test_a_mode_filter_narrows_the_ranking_the_matrix_and_the_anomalies(tmp_path: Path, browser: Any) -> None:
    run = scale_run(tmp_path / "run-modes", 800)  # selection and recovery, four targets
    path = tmp_path / "report.html"
    path.write_text(render_html(run), encoding="utf-8")
    records = list(iter_record_dicts(run / RECORDS_FILE))
    tab, errors = open_page(browser, path.as_uri())
    tab.select_option("#filter-mode", "recovery")
    settle(tab)
    recovery = [r for r in records if r["mode"] == "recovery"]
    cases = {r["case_id"] for r in recovery}
    total = len({r["case_id"] for r in records})
    assert 0 < len(cases) < total
    assert tab.locator("#filter-summary").inner_text() == (
        f"Filtered: {len(recovery)} of {len(records)} observations, {len(cases)} of {total} cases."
    )
    assert {
        r.get_attribute("data-mode") for r in tab.locator("#ranking-table tr.rank-row:visible").all()
    } == {"recovery"}
    modes = {t.split(" [")[1] for t in tab.locator("#matrix-table thead th[data-column]").all_inner_texts()}
    assert modes == {"recovery]"}
    shown = tab.locator("#anomalies-table tbody tr:visible").all_inner_texts()
    assert shown and all("\trecovery\t" in row for row in shown)
    assert not errors
