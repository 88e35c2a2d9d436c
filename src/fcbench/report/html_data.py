"""The data side of the HTML report: every record as a compact observation row, the cases, and
the data blocks the page embeds.

Every observation of the run is embedded, one compact JSON object per record (in file order, so
an observation's number is its position in ``records.jsonl``), in a ``<script>`` data block that
the browser never executes. A block of at most :data:`PLAIN_MAX_BYTES` is plain JSON; a larger one
is gzip-compressed and base64-encoded (``type="application/octet-stream"``) and decompressed in the
browser with ``DecompressionStream``. Raw request and response bodies stay references into the
run's blob store (``{"$blob": id}``) and the blobs are embedded once each, in a block of their own,
unless they exceed :data:`MAX_RAW_COMPRESSED_BYTES` compressed: then the page says where to read
them. Plain blocks have ``<``, ``>`` and ``&`` escaped so no text can close them.

``fcbench view`` uses the same rows (:mod:`fcbench.view.query`), read from the run per request.
"""

from __future__ import annotations

import base64
import bisect
import gc
import gzip
import json
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from fcbench.errors import FcbenchError
from fcbench.files import open_run_file
from fcbench.metrics import RunMetrics, compute_metrics, failure_reasons, record_anomalies
from fcbench.report.failures import FailureCounts, failure_of
from fcbench.store.blobs import BLOBS_FILE, iter_blobs
from fcbench.store.records import RECORDS_FILE, read_manifest
from fcbench.store.view import RecordView, iter_views

PLAIN_MAX_BYTES = 256 * 1024
"""Data blocks up to this size stay plain JSON (readable in the file); larger ones are compressed."""
MAX_RAW_COMPRESSED_BYTES = 20 * 1024 * 1024
"""Raw bodies are embedded only when their blobs take at most this much, compressed."""
LATENCY_BINS_MS = (100, 200, 500, 1000, 2000, 5000, 10000, 30000)
"""Upper bounds (ms) of the latency histogram's bins; a last bin holds everything slower."""


def json_for_script(text: str) -> str:
    """Make JSON text safe inside a ``<script>`` element (no ``</script>``, no ``<!--``)."""
    return (
        text.replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )


def dumps(value: Any) -> str:
    """Compact JSON text of ``value`` (non-ASCII kept, anything unknown as its string, NaN and
    infinities as null); msgspec writes it, :func:`json.dumps` what msgspec cannot (integers
    beyond 64 bits)."""
    try:
        return msgspec.json.encode(value, enc_hook=str).decode("utf-8")
    except (OverflowError, TypeError, ValueError):
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


@dataclass(frozen=True)
class DataBlock:
    """One ``<script>`` data block of the page."""

    element_id: str
    """The element's id (the page's script reads it by id)."""
    mime: str
    """``application/json`` (plain) or ``application/octet-stream`` (gzip + base64)."""
    payload: str
    """The block's text, safe inside ``<script>``."""
    compressed_bytes: int
    """Size of the gzip-compressed JSON (before base64), for the page's notes and the benchmark."""


def data_block(element_id: str, value: Any, plain_max: int = PLAIN_MAX_BYTES) -> DataBlock:
    """``value`` as a data block: plain JSON when small, else gzip-compressed and base64-encoded."""
    text = dumps(value)
    raw = text.encode("utf-8")
    packed = gzip.compress(raw, compresslevel=6, mtime=0)
    if len(raw) <= plain_max:
        return DataBlock(element_id, "application/json", json_for_script(text), len(packed))
    return DataBlock(element_id, "application/octet-stream", base64.b64encode(packed).decode(), len(packed))


def result_of(decision: str, passed: bool | None) -> str:
    """``pass``, ``fail`` or ``not_scored`` (provider or harness error: coverage loss)."""
    if decision == "not_scored":
        return "not_scored"
    return "pass" if passed is True else "fail"


def observation_row(rec: RecordView, n: int) -> dict[str, Any]:
    """The compact form of one record shown by the page (raw bodies left as blob references)."""
    verdict = rec.verdict_data()
    outcome = rec.outcome.data()
    case = rec.case_data()
    decision = verdict.get("decision") if verdict else None
    scorable = rec.outcome.kind != "provider_error" and decision not in (None, "not_scored")
    decision = str(decision) if scorable else "not_scored"
    passed = verdict.get("passed") if verdict else None
    raw = rec.raw_data()
    if isinstance(raw, dict) and ("request" in raw or "response" in raw):
        request, response = raw.get("request"), raw.get("response")
    else:
        request, response = raw or None, None
    return {
        "n": n,
        "seq": rec.seq,
        "target": rec.label,
        "mode": str(rec.mode),
        "case_id": str(rec.case_id),
        "repeat": rec.repeat,
        "category": str(case.get("category", "")),
        "tags": [str(t) for t in case.get("tags") or []],
        "decision": decision,
        "result": result_of(decision, passed),
        "anomalies": list(record_anomalies(rec)),
        "reasons": failure_reasons(verdict) if verdict and passed is not True and scorable else [],
        "failure": failure_of(decision, passed, verdict, outcome.get("code")),
        "outcome": outcome,
        "verdict": verdict,
        "turns": rec.turn_data(),
        "error": rec.error,
        "latency_ms": rec.latency_ms,
        "request": request,
        "response": response,
    }


def case_info(rec: RecordView) -> dict[str, Any]:
    """What the page shows of a record's case: prompt, category, tags and expected kind."""
    case = rec.case_data()
    return {
        "prompt": str(case.get("prompt", "")),
        "category": str(case.get("category", "")),
        "tags": [str(t) for t in case.get("tags") or []],
        "expected_kind": str(case.get("expected_kind", "")),
    }


@dataclass
class ObservationCollector:
    """The metrics observer of the HTML report: every record's row, its case, and the filter values."""

    keep_rows: bool = True
    """Keep every row (the static report); False keeps only the cases and filter values (the viewer)."""
    rows: list[dict[str, Any]] = field(default_factory=list)
    """One :func:`observation_row` per record, in file order."""
    cases: dict[str, dict[str, Any]] = field(default_factory=dict)
    """:func:`case_info` of each case id, as its first record had it."""
    decisions: set[str] = field(default_factory=set)
    """Every decision seen (``not_scored`` included)."""
    anomalies: set[str] = field(default_factory=set)
    """Every anomaly code seen, on any record (provider errors and duplicates included)."""
    count: int = 0
    """Records seen."""
    failures: FailureCounts = field(default_factory=FailureCounts)
    """Failure types per target label and mode (:mod:`fcbench.report.failures`)."""
    latency: dict[tuple[str, str], list[int]] = field(default_factory=dict)
    """(target label, mode) -> observations per latency bin (:data:`LATENCY_BINS_MS`, then slower)."""

    def __call__(self, rec: RecordView) -> None:
        """Observe one record."""
        self.add(observation_row(rec, self.count), rec)

    def add(self, row: dict[str, Any], rec: RecordView) -> None:
        """Observe one record whose :func:`observation_row` the caller already made."""
        self.count += 1
        self.decisions.add(row["decision"])
        self.anomalies.update(row["anomalies"])
        self.failures.add(row["target"], row["mode"], row["failure"])
        latency = row["latency_ms"]
        if isinstance(latency, (int, float)) and row["decision"] != "not_scored":
            bins = self.latency.setdefault((row["target"], row["mode"]), [0] * (len(LATENCY_BINS_MS) + 1))
            bins[bisect.bisect_left(LATENCY_BINS_MS, latency)] += 1
        case_id = row["case_id"]
        if case_id not in self.cases:
            self.cases[case_id] = case_info(rec)
        if self.keep_rows:
            self.rows.append(row)


def expected_by_case(run_dir: Path) -> dict[str, Any]:
    """Each case's ``expected`` and ``note`` from the run's suite, and what a recovery conversation
    of it must do (``recovery``: its success rule, the call that counts as repaired and the
    forbidden tools); empty when the suite cannot be loaded."""
    from fcbench.grading.recovery import effective_spec
    from fcbench.suite.loader import load_suite

    try:
        manifest = read_manifest(run_dir)
        suite = load_suite(manifest.suite_ref or manifest.suite)
    except (FcbenchError, OSError, ValueError):
        return {}
    out: dict[str, Any] = {}
    for c in suite.cases:
        spec = effective_spec(c)
        out[c.id] = {
            "expected": c.expected.model_dump(mode="json", exclude_none=True),
            "note": c.note,
            "recovery": {
                "success": spec.success,
                "expect_call": spec.expect_call.name if spec.expect_call else None,
                "forbid_tools": list(spec.forbid_tools),
            },
        }
    return out


class BlobLine(msgspec.Struct):
    """One line of the blob store: an id and its value, kept as JSON text."""

    id: str
    value: msgspec.Raw


def blob_pairs(path: Path) -> list[list[Any]]:
    """Every well-formed blob of a blob file as ``[id, value]`` (the value as its JSON text), read
    in one go; a torn or damaged file is read member by member instead (:func:`iter_blobs`)."""
    try:
        with open_run_file(path) as raw, gzip.open(raw, "rb") as fh:
            content = fh.read()
    except (EOFError, OSError, zlib.error):
        return [[blob["id"], blob["value"]] for blob in iter_blobs(path)]
    decode = msgspec.json.Decoder(BlobLine).decode
    pairs: list[list[Any]] = []
    for line in content.splitlines():
        try:
            blob = decode(line)
        except (msgspec.DecodeError, RecursionError, ValueError):
            continue
        pairs.append([blob.id, blob.value])
    return pairs


def raw_block(run_dir: Path) -> tuple[DataBlock | None, str]:
    """The run's blobs (the raw bodies the rows reference) as a data block of ``[[id, value]]``
    (None when there are none or they exceed :data:`MAX_RAW_COMPRESSED_BYTES` compressed), and the
    sentence the page shows when they are left out."""
    path = run_dir / BLOBS_FILE
    stored = path.stat().st_size if path.is_file() else 0
    block = data_block("raw-data", blob_pairs(path)) if 0 < stored <= MAX_RAW_COMPRESSED_BYTES else None
    if not stored or (block is not None and block.compressed_bytes <= MAX_RAW_COMPRESSED_BYTES):
        return block, ""
    size = (block.compressed_bytes if block is not None else stored) / 2**20
    return None, (
        f"Raw request and response bodies are not embedded ({size:.0f} MiB compressed); "
        f"read them with `fcbench show {run_dir.name} --raw` or open the run in `fcbench view`."
    )


def collect(
    run_dir: Path, modes: list[str] | None = None, profile: str = "strict", keep_rows: bool = True
) -> tuple[RunMetrics, ObservationCollector]:
    """The run's metrics and its observations (rows only with ``keep_rows``), each record read once
    for the metrics (straight from the lines, :mod:`fcbench.store.view`) and once for the rows."""
    collector = ObservationCollector(keep_rows=keep_rows)
    if profile != "strict":
        return compute_metrics(run_dir, modes=modes, observer=collector, profile=profile), collector
    metrics = compute_metrics(run_dir, modes=modes)
    wanted = set(modes) if modes is not None else None
    paused = gc.isenabled()
    gc.disable()  # hundreds of thousands of long-lived objects without cycles: nothing to collect
    try:
        for rec in record_views(run_dir):
            if wanted is None or rec.mode in wanted:
                collector(rec)
    finally:
        if paused:
            gc.enable()
    return metrics, collector


def record_views(run_dir: Path) -> Iterator[RecordView]:
    """Every record of ``run_dir`` as a view, in file order (lines that are no records are skipped,
    a torn last line ends the file)."""
    return iter_views(run_dir / RECORDS_FILE)
