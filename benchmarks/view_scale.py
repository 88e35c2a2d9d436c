"""``fcbench view`` at scale in headless Chromium: page loads and one-observation loads at 10^3 .. 10^6.

For each size, a run of N observations is written straight through the store's blob writer
(the records of ``tests/support/html_runs.py``'s ``scale_record``: 4 targets, selection and recovery,
passes, failures of every kind, provider errors, anomalies, a unique raw response per observation
compacted into ``blobs.jsonl.gz`` in batches of 32 as the runner writes them; the first record of
each run is checked against the typed ``Record``). One real ``fcbench view`` serves them all, and
headless Chromium (Playwright, ``/usr/bin/chromium``) measures, per run:

* ``open``: the first open of the run's page, until the observation list is shown (the server reads
  the run once: metrics, page data and the observation index);
* ``first screen``: the page opened again (the run's index kept), until the list is shown;
* ``obs first``: one observation and its raw request and response fetched by the page's own calls,
  the first time (the blob index is built then);
* ``obs``: the same for ``--samples`` other observations spread over the run, median and max;
* ``search``: a text search answered by the server (``q=`` one order id), median.

Every fetched observation is checked: its ``seq`` is the one asked for and its raw response is the
one written for it (``resp-SEQ``), so a fast answer of the wrong thing fails the benchmark.

    .venv/bin/python benchmarks/view_scale.py --sizes 1000 10000 100000 1000000
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import msgspec

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "support"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from html_runs import (  # noqa: E402
    TARGETS,
    case_prompt,
    chromium,
    running_view,
    scale_manifest,
    scale_record,
    write_suite,
)

from fcbench.store.blobs import BLOBS_FILE, BlobStore  # noqa: E402
from fcbench.store.records import RECORDS_FILE, Record, write_manifest  # noqa: E402

WRITTEN = ".written"
"""Marks a kept run written to the end."""
BATCH = 32
"""Records per written batch (one gzip member of blobs each), as the runner's writer."""
REPEATS = 5
BUDGET_OBS_MS = 100.0
BUDGET_FIRST_SCREEN_MS = 1000.0
READY = "window.fcbenchObservationsReady !== undefined"
LISTED = "document.getElementById('obs-count').textContent.indexOf('Loading') < 0"
FETCH_ONE = """async ([api, n]) => {
  const start = performance.now();
  const [obs, raw] = await Promise.all([
    fetch(api + '/observations/' + n).then(r => r.json()),
    fetch(api + '/observations/' + n + '/raw').then(r => r.json())]);
  return {ms: performance.now() - start, seq: obs.obs.seq, response: raw.response.id};
}"""
SEARCH = """async ([api, q]) => {
  const start = performance.now();
  const page = await fetch(api + '/observations?limit=200&q=' + encodeURIComponent(q)).then(r => r.json());
  return {ms: performance.now() - start, total: page.total};
}"""


def write_run(run_dir: Path, n: int, seed: int = 7) -> Path:
    """A run of ``n`` observations in ``run_dir`` (its suite inside it)."""
    rng = random.Random(seed)
    cases = max(1, n // (len(TARGETS) * REPEATS))
    run_dir.mkdir(parents=True, exist_ok=True)
    for stale in (RECORDS_FILE, BLOBS_FILE):
        (run_dir / stale).unlink(missing_ok=True)
    write_manifest(run_dir, scale_manifest(run_dir.name, write_suite(run_dir / "suite", cases), n, REPEATS))
    encode = msgspec.json.Encoder().encode
    blobs = BlobStore(run_dir / BLOBS_FILE)
    with (run_dir / RECORDS_FILE).open("wb") as fh:
        batch: list[bytes] = []
        for seq in range(n):
            record = scale_record(seq, cases, run_dir.name, rng)
            record["raw"] = blobs.compact_raw(record["raw"])
            if seq == 0:
                Record.model_validate(record)  # the shape the runner writes
            batch.append(encode(record) + b"\n")
            if len(batch) == BATCH or seq == n - 1:
                blobs.write_durably(blobs.take_pending())  # blobs first, as the runner
                fh.write(b"".join(batch))
                batch = []
    blobs.close()
    return run_dir


def _open_ms(browser: Any, url: str) -> float:
    tab = browser.new_page(viewport={"width": 1440, "height": 900})
    start = time.perf_counter()
    tab.goto(url, timeout=3_600_000)  # the first open reads the whole run
    tab.wait_for_function(READY, timeout=1_800_000)
    tab.wait_for_function(LISTED, timeout=1_800_000)
    elapsed = (time.perf_counter() - start) * 1000
    tab.close()
    return elapsed


def measure(browser: Any, base: str, key: str, n: int, samples: int) -> dict[str, float]:
    """The figures of one run (see the module's docstring); raises when an answer is not the one asked for."""
    page_url = f"{base}/runs/{key}"
    figures = {"open": _open_ms(browser, page_url), "first screen": _open_ms(browser, page_url)}
    tab = browser.new_page()
    tab.goto(page_url)  # the page's own origin (the run list would read every run first)
    api = f"{base}/api/runs/{key}"
    rng = random.Random(n)
    wanted = [n - 1] + [rng.randrange(n) for _ in range(samples)]
    times = []
    for seq in wanted:
        got = tab.evaluate(FETCH_ONE, [api, seq])
        if got["seq"] != seq or got["response"] != f"resp-{seq}":
            raise SystemExit(f"observation {seq} of {key}: got seq {got['seq']}, response {got['response']}")
        times.append(got["ms"])
    figures["obs first"] = times[0]
    figures["obs median"] = statistics.median(times[1:])
    figures["obs max"] = max(times[1:])
    searches = []
    for case in (rng.randrange(max(1, n // (len(TARGETS) * REPEATS))) for _ in range(5)):
        got = tab.evaluate(SEARCH, [api, case_prompt(case).split()[3].rstrip("?").lower()])
        if got["total"] < 1:
            raise SystemExit(f"search for case {case} of {key} found nothing")
        searches.append(got["ms"])
    figures["search"] = statistics.median(searches)
    tab.close()
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    parser.add_argument(
        "--samples", type=int, default=20, help="Observations fetched per run after the first."
    )
    parser.add_argument(
        "--keep", type=Path, help="Write the runs here and keep them (default: a temporary folder)."
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        root = args.keep or Path(scratch) / "runs"
        for n in args.sizes:
            if not (root / f"n{n}" / WRITTEN).exists():
                start = time.perf_counter()
                run = write_run(root / f"n{n}", n)
                (run / WRITTEN).touch()  # a kept run is reused only when it was written whole
                size = (run / RECORDS_FILE).stat().st_size + (run / BLOBS_FILE).stat().st_size
                took = time.perf_counter() - start
                print(f"wrote {n:>9,} observations in {took:6.1f} s ({size / 2**20:,.0f} MiB)", flush=True)
        rows = []
        with running_view(root, "--read-timeout", "3600") as base, chromium() as browser:
            for n in args.sizes:
                rows.append((n, measure(browser, base, f"n{n}", n, args.samples)))
                print(f"measured {n:>9,}: {rows[-1][1]}", flush=True)
    columns = ["open", "first screen", "obs first", "obs median", "obs max", "search"]
    print()
    print(f"{'observations':>12} | " + " | ".join(f"{c:>12}" for c in columns) + " |  (ms)")
    for n, figures in rows:
        print(f"{n:>12,} | " + " | ".join(f"{figures[c]:>12,.1f}" for c in columns) + " |")
    print()
    for n, figures in rows:
        print(
            f"{n:>12,}: one observation {figures['obs median']:.1f} ms median "
            f"(x{figures['obs median'] / BUDGET_OBS_MS:.2f} of {BUDGET_OBS_MS:.0f} ms), first screen "
            f"{figures['first screen']:.0f} ms (x{figures['first screen'] / BUDGET_FIRST_SCREEN_MS:.2f} of "
            f"{BUDGET_FIRST_SCREEN_MS:.0f} ms)"
        )


if __name__ == "__main__":
    main()
