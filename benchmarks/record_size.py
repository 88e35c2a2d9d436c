"""Bytes per observation on disk with raw capture on, against the naive (uncompacted) records.

Runs the built-in suite against the simulated models on the embedded mock (the default targets),
then compares the run's actual bytes (records.jsonl + blobs.jsonl) with the bytes the same records
take with every raw exchange written in full, and checks every raw exchange expands exactly.

Then one observation of that run is written again with a ~10 MB argument the model got wrong
(``--large-mb``), its raw text sent compact and spaced: the bytes the run directory grows by
against the argument's size, and against the record with every copy in it (as record format 2
wrote it); every value is checked to come back exactly.

    python benchmarks/record_size.py --repeats 3
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from fcbench.store.blobs import BLOBS_FILE, expand_blobs, load_blobs
from fcbench.store.records import RECORDS_FILE, Record, RecordWriter, iter_record_dicts, iter_records


def dumps(value: object) -> bytes:
    """Compact JSON bytes, as records are written."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


def large_argument(template: dict[str, Any], megabytes: float, spaced: bool) -> Record:
    """``template`` (a tool-call record) with one call whose ``notes`` argument is ``megabytes`` of
    text, graded wrong on it."""
    text = "".join(f"line {i:07d} of a pasted log. " for i in range(int(megabytes * 2**20) // 30))
    arguments = {"order_id": "ORD-104821", "notes": text}
    raw = json.dumps(arguments) if spaced else dumps(arguments).decode()
    call = {
        "id": "call_1",
        "name": "lookup_order",
        "arguments": arguments,
        "raw_arguments": raw,
        "parse_error": None,
    }
    verdict = dict(template["verdict"])
    verdict |= {"passed": False, "wrong": [{"key": "notes", "expected": "none", "actual": text}]}
    data = {**template, "outcome": {"kind": "tool_calls", "calls": [call]}, "verdict": verdict, "raw": {}}
    return Record.model_validate(data)


def measure_large(template: dict[str, Any], megabytes: float) -> None:
    """Write the large record in a run directory of its own; print what the directory grew by."""
    for spaced in (False, True):
        record = large_argument(template, megabytes, spaced)
        every_copy = len(record.model_dump_json()) + 1
        argument = len(next(t for t in record.raw_argument_texts() if t))
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / RECORDS_FILE
            with RecordWriter(path) as writer:
                writer.append(record)
            stored = path.stat().st_size + (Path(tmp) / BLOBS_FILE).stat().st_size
            (back,) = iter_records(path)
            assert back == record, "a left-out value did not come back"
        style = "spaced" if spaced else "compact"
        print(
            f"{megabytes:g} MB argument ({style:7}) {every_copy / 1e6:.2f} MB with every copy -> "
            f"{stored / 1e6:.2f} MB stored ({stored / argument:.3f}x the argument); every value comes back"
        )


def main() -> None:
    """Run, measure and print bytes per observation."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--large-mb", type=float, default=10.0, help="size of the large argument (0: skip)")
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
        template = None
        for record in iter_record_dicts(run_dir / RECORDS_FILE):
            if template is None and record["outcome"]["kind"] == "tool_calls" and record["verdict"]:
                template = dict(record)
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
    if args.large_mb and template is not None:
        measure_large(template, args.large_mb)


if __name__ == "__main__":
    main()
