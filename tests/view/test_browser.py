"""``fcbench view`` driven in headless Chromium against a real server: the runs, a run's page
filtered to a failing case and opened, deep links, and run versus run with its flips."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from html_runs import CHROMIUM, OPENED, chromium, open_row

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as instance:
        yield instance


def new_tab(browser: Any) -> tuple[Any, list[str]]:
    tab = browser.new_page(viewport={"width": 1400, "height": 1600})
    errors: list[str] = []
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    return tab, errors


def settled(tab: Any) -> None:
    tab.wait_for_function("window.fcbenchObservationsReady !== undefined", timeout=30_000)
    tab.wait_for_function("document.getElementById('obs-count').textContent.indexOf('Loading') < 0")


def test_filter_to_a_failing_case_and_open_it(view_url: str, browser: Any, tmp_path: Path) -> None:
    tab, errors = new_tab(browser)
    tab.goto(view_url + "/")
    tab.locator("#runs-table a", has_text="20260101-000000-base00").click()
    settled(tab)
    assert tab.locator("#matrix-table td.matrix-cell[data-case]").count() > 100
    tab.select_option("#filter-result", "fail")
    tab.select_option("#filter-decision", "correct_call")
    tab.wait_for_function("document.getElementById('obs-count').textContent.indexOf('Loading') < 0")
    assert "result=fail" in tab.url
    row = tab.locator("#obs-table tr.obs-row").first
    case_id = row.locator("td").nth(1).text_content()
    open_row(tab, row)
    assert (tab.locator("#obs-title").text_content() or "").split(" · ")[1] == case_id
    compare = tab.locator("#obs-compare").inner_text()
    assert "Tool\ttool_1\ttool_1\tok" in compare and "weight_grams" in compare
    assert "wrong" in compare or "missing" in compare
    assert '"tools"' in (tab.locator("#obs-request").text_content() or "")  # read from the blob store
    tab.locator("#obs-detail").screenshot(path=str(tmp_path / "view-failure.png"))

    link = tab.locator("#obs-link").get_attribute("href")
    assert link and link.startswith("#obs=")
    deep, deep_errors = new_tab(browser)
    deep.goto(view_url + "/runs/base" + link)
    settled(deep)
    deep.wait_for_function(OPENED, arg=int(link.removeprefix("#obs=")))
    deep.goto(view_url + "/runs/base/observations/3")  # the path form of the same link
    settled(deep)
    deep.wait_for_function(OPENED, arg=3)
    deep.locator("#obs-detail").screenshot(path=str(tmp_path / "view-deep-link.png"))
    assert not errors and not deep_errors


def test_run_versus_run_shows_the_flips(view_url: str, browser: Any, tmp_path: Path) -> None:
    tab, errors = new_tab(browser)
    tab.goto(view_url + "/")
    tab.select_option("#compare-base", "base")
    tab.select_option("#compare-new", "new")
    tab.locator("#compare-go").click()
    tab.wait_for_selector("#flips-table")
    assert "/compare?base=base&new=new" in tab.url
    flip = tab.locator("#flips-table tr.flip-row").first
    case_id = flip.get_attribute("data-case")
    kind = flip.get_attribute("data-kind")
    row = tab.locator(f'#compare-matrix tr[data-case="{case_id}"]')
    base_cell = row.locator("td.flip-real[data-side=base]")
    new_cell = row.locator("td.flip-real[data-side=new]")
    assert base_cell.count() >= 1 and new_cell.count() >= 1
    base_text, new_text = base_cell.first.inner_text(), new_cell.first.inner_text()
    passed = base_text if kind == "pass_to_fail" else new_text
    n, d = passed.split("/")
    assert n == d  # the side that passed every repeat
    tab.screenshot(path=str(tmp_path / "view-compare.png"), full_page=False)
    new_cell.first.locator("a").click()
    settled(tab)
    assert tab.locator(".matrix-cell.selected").count() == 1
    assert (tab.locator("#obs-selection").text_content() or "").startswith(f"Case {case_id}")
    assert int((tab.locator("#obs-count").text_content() or "0").split()[0]) > 0
    only = tab.goto(view_url + "/compare?base=base&new=new&only=flips")
    assert only is not None and only.status == 200
    rows = tab.locator("#compare-matrix tbody tr").count()
    assert rows == len({r.get_attribute("data-case") for r in tab.locator("#flips-table tr.flip-row").all()})
    assert not errors
