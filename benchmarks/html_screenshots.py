"""Regenerate the screenshots of the HTML report in the docs: its first screen and one failing
observation's own view, taken in headless Chromium at 1,280 x 800 from a synthetic run of 2,000
observations (``tests/support/html_runs.py``: four targets, passes, failures of every kind,
provider errors, recovery conversations).

    .venv/bin/python benchmarks/html_screenshots.py            # writes docs/img/report-*.png

Needs the ``playwright`` package and Chromium (``/usr/bin/chromium``).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "support"))

from html_runs import scale_run  # noqa: E402

from fcbench.report.html import render_html  # noqa: E402
from fcbench.store.records import RECORDS_FILE, iter_record_dicts  # noqa: E402

OPENED = "n => document.getElementById('obs-title').textContent.indexOf('#' + n + ' ·') === 0"


def failing_conversation(run: Path) -> int:
    """The number of the first failing recovery observation (else the first failing one)."""
    records = list(iter_record_dicts(run / RECORDS_FILE))
    failing = [n for n, r in enumerate(records) if r.get("verdict") and not r["verdict"]["passed"]]
    turns = [n for n in failing if records[n].get("turns")]
    return (turns or failing)[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "img", help="folder of the PNG files")
    parser.add_argument("--n", type=int, default=2000, help="observations of the synthetic run")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        run = scale_run(Path(tmp) / "run-screenshots", args.n)
        page = Path(tmp) / "report.html"
        page.write_text(render_html(run), encoding="utf-8")
        n = failing_conversation(run)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu"])
            tab = browser.new_page(viewport={"width": 1280, "height": 800})
            tab.goto(page.as_uri())
            tab.wait_for_function("window.fcbenchObservationsReady !== undefined", timeout=60_000)
            tab.screenshot(path=str(args.out / "report-first-screen.png"))
            tab.goto(page.as_uri() + f"#result=fail&obs={n}")
            tab.reload()
            tab.wait_for_function(OPENED, arg=n, timeout=60_000)
            tab.screenshot(path=str(args.out / "report-observation.png"))
            browser.close()
    print(json.dumps({"first_screen": "report-first-screen.png", "observation": n, "folder": str(args.out)}))


if __name__ == "__main__":
    main()
