"""``fcbench view`` at scale in headless Chromium: page loads and one-observation loads at 10^3 .. 10^6.

For each size, a run of N observations is written straight through the store's blob writer
(records shaped as ``tests/support/html_runs.py`` shapes them: 4 targets, selection and recovery,
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
    RECOVERY_SHARE,
    TARGETS,
    TOOLS,
    _observation,
    _turns,
    case_prompt,
    chromium,
    running_view,
    write_suite,
)

from fcbench.store.blobs import BLOBS_FILE, BlobStore  # noqa: E402
from fcbench.store.records import RECORDS_FILE, Manifest, Record, write_manifest  # noqa: E402

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


def _manifest(run_id: str, suite: Path, n: int) -> Manifest:
    return Manifest(
        run_id=run_id,
        fcbench_version="0.1.0",
        suite="synthetic",
        suite_ref=str(suite.resolve()),
        dataset_version="1.0.0",
        dataset_hash="0" * 64,
        config_hash="c" * 64,
        targets=[
            {"label": f"{e}:{m}", "endpoint": e, "dialect": d, "model": m, "base_url": "http://127.0.0.1:1"}
            for e, d, m in TARGETS
        ],
        modes=["selection", "recovery"],
        repeats=REPEATS,
        temperature=0.0,
        seed=0,
        planned=n,
        started_at="2026-01-01T00:00:00Z",
        finished_at="2026-01-01T01:00:00Z",
    )


def _record(seq: int, cases: int, run_id: str, rng: random.Random, blobs: BlobStore) -> dict[str, Any]:
    """One record as the runner writes it, its raw exchange compacted into ``blobs``."""
    endpoint, dialect, model = TARGETS[seq % len(TARGETS)]
    case = (seq // len(TARGETS)) % cases
    recovery = case % RECOVERY_SHARE == RECOVERY_SHARE - 1
    outcome, verdict, anomalies = _observation(case, rng)
    turns = _turns(case, outcome) if recovery and outcome["kind"] != "provider_error" else []
    request = {
        "model": model,
        "messages": [{"role": "system", "content": "You are a shop assistant."}, case_prompt(case)],
        "tools": TOOLS,
    }
    response = {"id": f"resp-{seq}", "model": model, "output": outcome, "usage": {"in": 420, "out": 25}}
    return {
        "run_id": run_id,
        "seq": seq,
        "started_at": "2026-01-01T00:00:00.000Z",
        "dataset_version": "1.0.0",
        "target": {"endpoint": endpoint, "dialect": dialect, "model": model},
        "case_id": f"case-{case:04d}",
        "case": {
            "category": ["normal", "boundary", "adversarial"][case % 3],
            "tags": [f"tag{case % 7}"],
            "expected_kind": "tool",
            "prompt": case_prompt(case),
        },
        "repeat": seq // (cases * len(TARGETS)),
        "mode": "recovery" if recovery else "selection",
        "outcome": outcome,
        "anomalies": anomalies,
        "verdict": verdict,
        "latency_ms": round(rng.uniform(50, 900), 3),
        "usage": {"input_tokens": 420, "output_tokens": 25},
        "cost_usd": 0.0001,
        "attempts": 1,
        "turns": turns,
        "raw": blobs.compact_raw({"request": request, "response": response}),
    }


def write_run(run_dir: Path, n: int, seed: int = 7) -> Path:
    """A run of ``n`` observations in ``run_dir`` (its suite inside it)."""
    rng = random.Random(seed)
    cases = max(1, n // (len(TARGETS) * REPEATS))
    run_dir.mkdir(parents=True, exist_ok=True)
    write_manifest(run_dir, _manifest(run_dir.name, write_suite(run_dir / "suite", cases), n))
    encode = msgspec.json.Encoder().encode
    blobs = BlobStore(run_dir / BLOBS_FILE)
    with (run_dir / RECORDS_FILE).open("wb") as fh:
        batch: list[bytes] = []
        for seq in range(n):
            record = _record(seq, cases, run_dir.name, rng, blobs)
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
    tab.goto(url)
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
    tab.goto(f"{base}/")
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
            if not (root / f"n{n}" / RECORDS_FILE).exists():
                start = time.perf_counter()
                run = write_run(root / f"n{n}", n)
                size = (run / RECORDS_FILE).stat().st_size + (run / BLOBS_FILE).stat().st_size
                took = time.perf_counter() - start
                print(f"wrote {n:>9,} observations in {took:6.1f} s ({size / 2**20:,.0f} MiB)", flush=True)
        rows = []
        with running_view(root, "--read-timeout", "3600") as base, chromium() as browser:
            for n in args.sizes:
                rows.append((n, measure(browser, base, f"n{n}", n, args.samples)))
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
