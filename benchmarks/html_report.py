"""The static HTML report at scale: generation time, file size and browser load time, against budgets.

Synthesises a run of N observations (4 targets, selection and recovery modes, passes, failures of
every kind, provider errors, anomalies, multi-turn conversations, raw exchanges compacted into the
blob store as the runner writes them; ``tests/support/html_runs.py``), then:

* times ``render_html`` in-process (best of ``--repeats``) and split into its phases (metrics pass,
  observation rows, data blocks, template), and ``fcbench report RUN -f html -o FILE`` end to end in
  a child process;
* prints the file's size and the share of each embedded data block;
* loads the file in headless Chromium (when the ``playwright`` package and ``/usr/bin/chromium`` are
  there) and reads ``window.fcbenchReady`` (the matrix drawn) and ``window.fcbenchObservationsReady``
  (every observation decoded), in ms after navigation, median of ``--loads``.

Each figure is printed with its ratio to the budget: generation 3 s, load 2 s, file 4 MiB (a
fraction of the 12-25 MB the plotly report took for 10^4 observations), and how many observations'
detail the page left out to keep its observation blocks within ``DETAIL_BUDGET_BYTES``.

    .venv/bin/python benchmarks/html_report.py --n 10000
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "support"))

from html_runs import scale_run  # noqa: E402

from fcbench.metrics import compute_metrics  # noqa: E402
from fcbench.report import html, html_data  # noqa: E402

BUDGET_SECONDS = 3.0
BUDGET_LOAD_MS = 2000.0
BUDGET_BYTES = 4 * 2**20
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


def phases(run: Path) -> tuple[dict[str, float], int]:
    """Seconds of each phase of one ``render_html`` of ``run``, and how many observations' detail
    the page left out to keep within its budget."""
    out: dict[str, float] = {}
    start = time.perf_counter()
    metrics = compute_metrics(run)
    out["metrics pass"] = time.perf_counter() - start
    start = time.perf_counter()
    _, collector = html_data.collect(run)
    out["rows pass (metrics again included)"] = time.perf_counter() - start
    start = time.perf_counter()
    pairs, note = html_data.raw_pairs(run)
    detail = html_data.detail_blocks(collector.rows, pairs)
    blocks = [
        html_data.data_block("report-data", html.report_data(metrics, collector, note), plain_max=1 << 62),
        *detail.blocks,
        html_data.data_block("case-data", collector.cases),
    ]
    out["data blocks (JSON + gzip, raw blobs read, budget kept)"] = time.perf_counter() - start
    start = time.perf_counter()
    html.render_page(metrics, collector, api=None, blocks=blocks)
    out["template"] = time.perf_counter() - start
    return out, detail.left_out


def load_times(page: Path, loads: int) -> tuple[float, float] | None:
    """Median ms to the matrix drawn and to every observation decoded; None without a browser."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return None
    if not Path(CHROMIUM).exists():
        return None
    ready: list[float] = []
    decoded: list[float] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        for _ in range(loads):
            tab = browser.new_page(viewport={"width": 1400, "height": 1600})
            tab.goto(page.as_uri())
            tab.wait_for_function("window.fcbenchObservationsReady !== undefined", timeout=60_000)
            a, b = tab.evaluate("[window.fcbenchReady, window.fcbenchObservationsReady]")
            ready.append(a)
            decoded.append(b)
            tab.close()
        browser.close()
    return statistics.median(ready), statistics.median(decoded)


def budget(value: float, limit: float) -> str:
    """``value`` as a ratio to its budget."""
    return f"{value / limit:.2f} x budget"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=10_000, help="observations of the synthetic run")
    parser.add_argument("--repeats", type=int, default=3, help="in-process renders (best is kept)")
    parser.add_argument("--loads", type=int, default=3, help="browser loads (median is kept)")
    args = parser.parse_args()
    mib = 2**20
    with tempfile.TemporaryDirectory() as tmp:
        run = scale_run(Path(tmp) / "run", args.n)
        records = (run / "records.jsonl").stat().st_size / mib
        blobs = (run / "blobs.jsonl.gz").stat().st_size / mib
        print(f"run: {args.n} observations, records.jsonl {records:.1f} MiB, blobs {blobs:.2f} MiB")

        best = float("inf")
        text = ""
        for _ in range(args.repeats):
            start = time.perf_counter()
            text = html.render_html(run)
            best = min(best, time.perf_counter() - start)
        page = Path(tmp) / "report.html"
        page.write_text(text, encoding="utf-8")
        size = page.stat().st_size
        start = time.perf_counter()
        out = str(Path(tmp) / "cli.html")
        subprocess.run(
            [sys.executable, "-m", "fcbench", "report", str(run), "-f", "html", "-o", out],
            check=True,
            capture_output=True,
        )
        end_to_end = time.perf_counter() - start

        print(
            f"generation (in-process, best of {args.repeats}): {best:.2f} s = {budget(best, BUDGET_SECONDS)}"
        )
        print(f"generation (fcbench report -f html, child process): {end_to_end:.2f} s")
        measured = [phases(run) for _ in range(args.repeats)]
        runs = [times for times, _ in measured]
        for name in runs[0]:
            seconds = min(r[name] for r in runs)
            print(f"  {name:<42} {seconds:.2f} s (best of {args.repeats})")
        per = size / args.n
        print(f"file: {size / mib:.2f} MiB = {budget(size, BUDGET_BYTES)}, {per:.0f} bytes per observation")
        left_out = measured[0][1]
        print(
            f"  detail left out: {left_out} observations (budget {html_data.DETAIL_BUDGET_BYTES / mib:g} MiB)"
        )
        for block in ("report-data", "obs-data", "obs-values", "case-data", "raw-data"):
            start_at = text.find(f'id="{block}">')
            if start_at >= 0:
                length = text.find("</script>", start_at) - start_at
                print(f"  {block:<12} {length / mib:.2f} MiB ({length / size:.0%})")
        loaded = load_times(page, args.loads)
        if loaded is None:
            print("load: not measured (needs the playwright package and chromium)")
            return
        ready, decoded = loaded
        print(
            f"load (matrix drawn, median of {args.loads}): {ready:.0f} ms = {budget(ready, BUDGET_LOAD_MS)}"
        )
        print(f"load (every observation decoded): {decoded:.0f} ms = {budget(decoded, BUDGET_LOAD_MS)}")


if __name__ == "__main__":
    main()
