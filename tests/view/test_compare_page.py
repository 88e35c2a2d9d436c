"""The run-versus-run page in headless Chromium: the default pair is comparable, a real regression
is shown (its flips, its outputs side by side, red in one matrix whose rows line up) and the noise
is counted but not shown, and the pairs are chosen in the page."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from html_runs import CHROMIUM, running_view
from records_builder import RunBuilder, call_outcome, text_outcome, verdict

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")

REAL = ["c00", "c01", "c02"]
"""3/3 -> 0/3: beyond the interval."""
NOISE_DOWN = ["c03", "c04", "c05", "c06", "c07"]
"""3/3 -> 2/3: inside it."""
NOISE_UP = ["c08", "c09", "c10", "c11", "c12"]
"""2/3 -> 3/3."""
CASES = [f"c{i:02d}" for i in range(30)]


def _run(
    run_dir: Path, run_id: str, letters: dict[str, str], *, modes: tuple[str, ...] = ("selection",)
) -> None:
    b = RunBuilder(run_dir, run_id=run_id, repeats=3, modes=list(modes))
    for case_id in CASES:
        for repeat, letter in enumerate(letters.get(case_id, "PPP")):
            if letter == "P":
                outcome, v = call_outcome(("lookup_order", {"order_id": case_id})), verdict()
            else:
                outcome, v = text_outcome(f"I cannot look up {case_id}."), verdict("missed_call")
            b.add(case_id, outcome, v, repeat=repeat, mode=modes[0], prompt=f"Where is order {case_id}?")
    b.write()


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = tmp_path_factory.mktemp("compare-page") / "runs"
    base = {**{c: "PPP" for c in REAL + NOISE_DOWN}, **{c: "PPF" for c in NOISE_UP}}
    new = {**{c: "FFF" for c in REAL}, **{c: "PFP" for c in NOISE_DOWN}, **{c: "PPP" for c in NOISE_UP}}
    _run(root / "base", "20260101-000000-base00", base)
    _run(root / "new", "20260102-000000-new000", new)
    _run(root / "other-mode", "20260103-000000-other0", new, modes=("recovery",))  # the newest run
    with running_view(root) as address:
        yield address


def test_a_real_regression_is_shown_and_the_noise_is_not(url: str, browser: Any, tmp_path: Path) -> None:
    tab = browser.new_page(viewport={"width": 1400, "height": 1400})
    errors: list[str] = []
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    tab.goto(url + "/")
    # the newest run is of another mode: the default pair is the newest two of the same suite and modes
    assert tab.locator("#compare-base").input_value() == "base"
    assert tab.locator("#compare-new").input_value() == "new"
    tab.locator("#compare-go").click()
    tab.wait_for_selector("#flips-table")
    assert (tab.locator("#compare-verdict").text_content() or "").startswith("REGRESSION")

    shown = {r.get_attribute("data-case") for r in tab.locator("#flips-table tr.flip-row").all()}
    assert shown == set(REAL)
    assert (tab.locator("#noise-count").text_content() or "").startswith("10 flips within noise")
    assert tab.locator("#noise-flips tr.noise-row").count() == 10
    assert not tab.locator("#noise-flips tr.noise-row").first.is_visible()  # folded away
    for case_id in NOISE_DOWN + NOISE_UP:
        assert tab.get_by_role("link", name=case_id, exact=True).count() == 0
        assert tab.locator(f'#compare-matrix tr[data-case="{case_id}"] td.flip-real').count() == 0

    pass_rate = tab.locator(".metric-table tr.metric-row[data-metric='Pass rate']")
    cells = pass_rate.locator("td").all_inner_texts()
    assert cells[1].startswith("94.4% (85/90) [") and cells[2].startswith("84.4% (76/90) [")
    assert cells[3].startswith("-10.0 [")

    # one matrix: each case's base and new cells on one row, side by side, the real flips first and red
    first = tab.locator("#compare-matrix tbody tr").first
    assert first.get_attribute("data-case") in REAL
    row = tab.locator('#compare-matrix tr[data-case="c01"]')
    base_cell, new_cell = row.locator("td[data-side=base]"), row.locator("td[data-side=new]")
    assert base_cell.inner_text() == "3/3" and new_cell.inner_text() == "0/3"
    assert "flip-real" in (new_cell.get_attribute("class") or "")
    b_box, n_box = base_cell.bounding_box(), new_cell.bounding_box()
    assert b_box and n_box and b_box["y"] == n_box["y"] and n_box["x"] > b_box["x"]

    diff = tab.locator('table.diff[data-case="c01"]')
    assert diff.locator("tr.replace").count() >= 1
    changed = diff.locator("tr.replace").all_inner_texts()
    assert any("correct_call" in text and "missed_call" in text for text in changed)
    assert "I cannot look up c01." in diff.locator("td.new").all_inner_texts().__str__()
    tab.screenshot(path=str(tmp_path / "compare.png"), full_page=False)
    assert not errors


def test_the_pairs_are_chosen_in_the_page(url: str, browser: Any) -> None:
    tab = browser.new_page(viewport={"width": 1400, "height": 1000})
    tab.goto(url + "/compare?base=base&new=new")
    select = tab.locator("select.pair-select").first
    assert select.input_value() == "mock:sim-a=mock:sim-a"
    select.select_option("")  # compare nothing: the gate says so
    tab.locator("#pair-go").click()
    tab.wait_for_selector("#compare-verdict")
    assert "compared 0 targets" in (tab.locator("#compare-verdict").text_content() or "")
    tab.locator("select.pair-select").first.select_option("mock:sim-a=mock:sim-a")
    tab.locator("#pair-go").click()
    tab.wait_for_selector("#flips-table")
    assert "pair=mock%3Asim-a%3Dmock%3Asim-a" in tab.url
    assert "(paired by explicit)" in tab.locator("#changes h3").first.inner_text()
    bad = tab.goto(url + "/compare?base=base&new=new&pair=nobody=mock:sim-a")
    assert bad is not None and bad.status == 422
    assert "nobody" in (tab.locator("#error").text_content() or "")
    default = tab.goto(url + "/compare")
    assert default is not None and "base=base&new=new" in tab.url
