"""Bytes per observation on disk with raw capture on, against the naive (uncompacted) records.

Runs the built-in suite against the simulated models on the embedded mock (the default targets),
then compares the run's actual bytes (records.jsonl + blobs.jsonl) with the bytes the same records
take with every raw exchange written in full, and checks every raw exchange expands exactly.

    python benchmarks/record_size.py --repeats 3
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from fcbench.store.blobs import BLOBS_FILE, expand_blobs, load_blobs
from fcbench.store.records import RECORDS_FILE, iter_record_dicts


def dumps(value: object) -> bytes:
    """Compact JSON bytes, as records are written."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


def main() -> None:
    """Run, measure and print bytes per observation."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--mode", action="append", default=None, help="selection (default), stream, forced")
    args = parser.parse_args()
    modes = [arg for mode in (args.mode or ["selection"]) for arg in ("--mode", mode)]
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            [
                sys.executable,
                "-m",
                "fcbench",
                "run",
                "--no-progress",
                "--repeats",
                str(args.repeats),
                "--out",
                tmp,
                *modes,
            ],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        run_dir = next(Path(tmp).iterdir())
        blobs = load_blobs(run_dir)
        naive = naive_raw = stored_raw = count = 0
        for record in iter_record_dicts(run_dir / RECORDS_FILE):
            stored_raw += len(dumps(record["raw"]))
            record["raw"] = expand_blobs(record["raw"], blobs)
            assert "$blob" not in json.dumps(record["raw"]), "a reference did not expand"
            naive_raw += len(dumps(record["raw"]))
            naive += len(dumps(record)) + 1
            count += 1
        blob_bytes = (run_dir / BLOBS_FILE).stat().st_size
        stored_raw += blob_bytes
        actual = (run_dir / RECORDS_FILE).stat().st_size + blob_bytes
    print(f"observations         {count} ({' '.join(modes[1::2])}, {args.repeats} repeats, default targets)")
    print(f"naive bytes/obs      {naive / count:.0f}")
    print(f"stored bytes/obs     {actual / count:.0f} (records + blobs)")
    print(f"stored / naive       {actual / naive:.3f} (whole records)")
    print(
        f"raw capture          {naive_raw / count:.0f} naive -> {stored_raw / count:.0f} stored bytes/obs, "
        f"ratio {stored_raw / naive_raw:.3f}"
    )


if __name__ == "__main__":
    main()
