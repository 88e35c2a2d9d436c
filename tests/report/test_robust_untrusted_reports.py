"""Model output, case files and tool names are data in every report, never markup or code.

Two runs carry hostile text (script tags, ``onerror`` images, ``javascript:`` links, markdown table
and link injection, backticks, spreadsheet formulas):

* a real run against the mock, whose ``sim-scripted`` model answers what the endpoint's
  ``X-Fcbench-Sim-Reply`` header (set through the config's ``headers``) dictates, over a suite with
  hostile names, ids, tags and prompts, plus a target whose hostile model name the mock rejects;
* a run written through :class:`fcbench.store.records.Record` with hostile text in every field.

The HTML report is opened in headless Chromium: nothing executes (``window.__pwned`` stays
undefined, no dialog opens, no page error), even after clicking every cell and observation and
using every filter. The markdown has no raw HTML, no live links and no extra table cells; JUnit is
well-formed XML; CSV cells cannot start a spreadsheet formula.
"""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from markdown_it import MarkdownIt
from robust_hostile import (
    FORMULAS,
    HOSTILE_MARKERS,
    XSS,
    hostile_records_run,
    hostile_suite,
    scripted_reply,
)
from robust_run import records, run_in_process

from fcbench.metrics import compute_metrics
from fcbench.report.compare import compare_runs
from fcbench.report.compare_render import render_compare_markdown
from fcbench.report.render import render_report

CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory, mock_server: str) -> dict[str, Path]:
    """``mock``: a real run with hostile model output and suite; ``records``: hostile records."""
    root = tmp_path_factory.mktemp("untrusted")
    suite = hostile_suite(root / "suite")
    endpoints = {
        f"evil-{kind}": {
            "dialect": "openai-chat",
            "base_url": "{mock}/v1",
            "headers": {"X-Fcbench-Sim-Reply": scripted_reply(kind)},
        }
        for kind in ("text", "calls", "refusal")
    }
    config = {
        "suite": str(suite),
        "endpoints": endpoints,
        "targets": [*(f"{name}:sim-scripted" for name in endpoints), f"sim:{XSS[3]}"],
        "repeats": 2,
        "modes": ["selection", "stream"],
    }
    result = run_in_process(config, root / "runs", mock_server)
    return {"mock": result.run_dir, "records": hostile_records_run(root / "records-run")}


def test_the_hostile_text_really_reached_the_records(runs: dict[str, Path]) -> None:
    rows = records(runs["mock"])
    outcomes = [json.dumps(r["outcome"], ensure_ascii=False) for r in rows]
    assert any(XSS[0] in o for o in outcomes)
    names = {c["name"] for r in rows if r["outcome"]["kind"] == "tool_calls" for c in r["outcome"]["calls"]}
    assert XSS[1] in names
    assert any(r["outcome"]["kind"] == "refusal" for r in rows)
    rejected = [r for r in rows if r["target"]["model"] == XSS[3]]
    assert rejected and all(r["outcome"]["kind"] == "provider_error" for r in rejected)


@pytest.fixture(scope="module")
def browser() -> Any:
    if CHROMIUM is None:
        pytest.skip("chromium is not installed")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        instance = playwright.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"]
        )
        yield instance
        instance.close()


DOM_PROBE = """() => {
  const all = [...document.querySelectorAll('*')];
  return {
    pwned: typeof window.__pwned,
    embedded: document.querySelectorAll('img, iframe, object, embed, frame').length,
    scripts: [...document.scripts].filter(s => !s.type || /javascript/i.test(s.type)).length,
    handlers: all.flatMap(el => [...el.attributes].filter(a => a.name.startsWith('on'))
                                  .map(a => el.tagName + ' ' + a.name)),
    links: [...document.querySelectorAll('a[href], area[href]')].map(a => a.getAttribute('href')),
    outcome: (document.getElementById('obs-outcome') || {}).textContent || '',
  };
}"""


@pytest.mark.parametrize("which", ["mock", "records"])
def test_html_report_executes_nothing(
    which: str, runs: dict[str, Path], browser: Any, tmp_path: Path
) -> None:
    path = tmp_path / "report.html"
    path.write_text(render_report(runs[which], "html"), encoding="utf-8")
    page = browser.new_page()
    dialogs: list[str] = []
    errors: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(path.as_uri())
    page.wait_for_load_state("load")
    cells = page.locator("#matrix-table td.matrix-cell[data-case]")
    for i in range(cells.count()):
        cells.nth(i).click()
    page.locator("#obs-clear").click()
    rows = page.locator("#obs-table tr.obs-row")
    for i in range(min(rows.count(), 40)):
        rows.nth(i).click()
    for select in page.locator("#filters select").all():
        for value in select.locator("option").evaluate_all("options => options.map(o => o.value)"):
            select.select_option(value=value)
    page.locator("#filter-reset").click()
    rows.first.click()
    probe = page.evaluate(DOM_PROBE)
    page.close()
    assert probe["pwned"] == "undefined", "an injected script ran"
    assert dialogs == [] and errors == [], (dialogs, errors)
    assert probe["embedded"] == 0 and probe["handlers"] == [], probe
    assert probe["scripts"] == 2, "only the page's own scripts (plotly and the report script)"
    assert not [
        h for h in probe["links"] if h.strip().lower().startswith(("javascript:", "data:", "vbscript:"))
    ]
    # The hostile text is shown, as text.
    assert "<script>" in probe["outcome"] or "<img" in probe["outcome"], probe["outcome"][:300]


def _markdown_tokens(text: str) -> list[Any]:
    parser = MarkdownIt("commonmark", {"html": True}).enable("table").enable("strikethrough")
    parser.validateLink = lambda url: True  # let every link through, to see every one
    flat: list[Any] = []
    for token in parser.parse(text):
        flat.append(token)
        flat.extend(token.children or [])
    return flat


UNESCAPED_PIPE = re.compile(r"(?<!\\)\|")


def _check_markdown(text: str) -> None:
    for tag in ("<script", "<img", "<svg", "<iframe", "<a ", "<b>", "<!--"):
        assert tag not in text.lower(), tag
    tokens = _markdown_tokens(text)
    assert not [t for t in tokens if t.type in ("html_inline", "html_block")]
    links = [t.attrGet("href") or t.attrGet("src") for t in tokens if t.type in ("link_open", "image")]
    assert links == [], f"untrusted text became links: {links}"
    for token in tokens:
        if token.type in ("code_inline", "fence", "code_block"):
            assert not any(m in token.content for m in HOSTILE_MARKERS), token.content
    header_pipes = None
    for line in text.splitlines():
        if not line.startswith("|"):
            header_pipes = None
            continue
        pipes = len(UNESCAPED_PIPE.findall(line))
        header_pipes = header_pipes or pipes
        assert pipes == header_pipes, f"a cell broke out of its table: {line[:200]}"
    assert "| new | row |" not in text and "| cell | injection |" not in text


@pytest.mark.parametrize("which", ["mock", "records"])
def test_markdown_report_has_no_markup_links_or_extra_cells(which: str, runs: dict[str, Path]) -> None:
    text = render_report(runs[which], "md")
    assert "pwned" in text, "the hostile text is in the report (escaped)"
    _check_markdown(text)


def test_compare_markdown_is_escaped_too(runs: dict[str, Path]) -> None:
    metrics = compute_metrics(runs["records"])
    comparison = compare_runs(metrics, metrics, max_drop=5.0, alpha=0.05, allow_dataset_change=True)
    _check_markdown(render_compare_markdown(comparison))


@pytest.mark.parametrize("which", ["mock", "records"])
def test_junit_is_well_formed_and_csv_cannot_start_formulas(which: str, runs: dict[str, Path]) -> None:
    root = ET.fromstring(render_report(runs[which], "junit"))  # well-formed: hostile text stayed data
    assert not list(root.iter("script"))
    rows = list(csv.reader(io.StringIO(render_report(runs[which], "csv"))))
    assert rows and all(len(r) == len(rows[0]) for r in rows)
    text_columns = [
        i for i, name in enumerate(rows[0]) if name in ("run_id", "target", "mode", "metric", "key")
    ]
    for row in rows[1:]:
        for i in text_columns:
            assert not row[i].startswith(("=", "+", "-", "@", "\t", "\r")), row[i]
    if which == "records":
        assert any(FORMULAS[0] in cell for row in rows for cell in row), "the formula text is kept, defused"
