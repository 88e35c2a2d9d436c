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

A large page stores each distinct detail value (outcome, verdict, turns, error, reasons, raw
references) once, in ``obs-values``, and its rows refer to them by index, so repeats cost a few
bytes. Above :data:`DETAIL_BUDGET_BYTES` the detail of some observations is left out (passes
first) and the page says how many and which command shows them all.

``fcbench view`` uses the same rows (:mod:`fcbench.view.query`), read from the run per request.
"""

from __future__ import annotations

import base64
import bisect
import gc
import gzip
import json
import re
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
DETAIL_BUDGET_BYTES = 10 * 2**18
"""Compressed bytes (2.5 MiB; about 3.3 MiB once base64-encoded) the observation blocks (rows,
their distinct values and the raw bodies) may take; above it the outcome, turns and raw bodies of
passing observations are left out first, then those of the oldest repeats of the others (every
observation keeps its summary row, so counts, filters and ranking stay exact)."""
DETAIL_FIELDS = ("outcome", "verdict", "turns", "error", "reasons", "request", "response")
"""Fields of an observation row that a large page stores once each (``obs-values``), by index."""
LEFT_OUT_FIELDS = ("outcome", "turns", "request", "response")
"""The detail of an observation row that is left out above :data:`DETAIL_BUDGET_BYTES`."""
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


@dataclass(frozen=True)
class EmbeddedDetail:
    """The observation blocks of the page and what was left out to keep them in the budget."""

    blocks: list[DataBlock]
    """``obs-data``, then ``obs-values`` (large pages) and ``raw-data`` (when embedded)."""
    left_out: int
    """Observations whose detail (:data:`LEFT_OUT_FIELDS`) is not in the page."""
    compressed_bytes: int
    """Compressed size of the blocks."""


def interned_rows(rows: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[Any]]:
    """``rows`` as a large page stores them: each :data:`DETAIL_FIELDS` value replaced by its index
    in a table of the distinct values (repeats share an outcome, a verdict, an error: each is stored
    once), ``seq`` left out where it equals ``n``, ``column`` left out (the page derives it from the
    target and mode) and the latency in whole milliseconds (as the page shows it)."""
    values: list[Any] = []
    index: dict[str, int] = {}
    packed = []
    for row in rows:
        out = {k: v for k, v in row.items() if k != "column" and (k != "seq" or v != row["n"])}
        if isinstance(row["latency_ms"], float):
            out["latency_ms"] = round(row["latency_ms"])
        for name in DETAIL_FIELDS:
            key = dumps(row[name])
            at = index.get(key)
            if at is None:
                at = index[key] = len(values)
                values.append(row[name])
            out[name] = at
        packed.append(out)
    return packed, values


BLOB_REF = re.compile(r'"\$blob":"((?:[^"\\]|\\.)*)"')


def referenced_blobs(rows: list[dict[str, Any]], pairs: list[list[Any]]) -> list[list[Any]]:
    """The blobs ``rows`` reference (through their raw bodies, and blobs through blobs)."""
    text_of = {pair[0]: raw_text(pair[1]) for pair in pairs}
    wanted: set[str] = set()
    todo = [dumps([row["request"], row["response"]]) for row in rows if not row.get("left_out")]
    while todo:
        for blob_id in BLOB_REF.findall(todo.pop()):
            if blob_id not in wanted and blob_id in text_of:
                wanted.add(blob_id)
                todo.append(text_of[blob_id])
    return [pair for pair in pairs if pair[0] in wanted]


def raw_text(value: Any) -> str:
    """A blob's value as JSON text (kept as :class:`msgspec.Raw` when read in one go)."""
    return bytes(value).decode("utf-8", "replace") if isinstance(value, msgspec.Raw) else dumps(value)


def detail_blocks(
    rows: list[dict[str, Any]], pairs: list[list[Any]] | None, budget: int = DETAIL_BUDGET_BYTES
) -> EmbeddedDetail:
    """The observation blocks of ``rows`` (and of the blobs ``pairs`` when raw bodies are embedded),
    leaving out detail (passes first, then the oldest repeats of the others) while they exceed
    ``budget`` compressed; a few passes of compression, each dropping what the excess suggests."""
    order = sorted(
        (i for i, row in enumerate(rows)), key=lambda i: (rows[i]["result"] != "pass", rows[i]["repeat"], i)
    )
    passes = sum(1 for row in rows if row["result"] == "pass")
    dropped = 0
    floor: int | None = None
    while True:
        blocks = observation_blocks(rows, pairs)
        size = sum(block.compressed_bytes for block in blocks)
        if size <= budget or dropped == len(order):
            return EmbeddedDetail(blocks, dropped, size)
        if dropped < passes:
            more = passes - dropped
        else:
            if floor is None:
                bare = [dict(row, **dict.fromkeys(LEFT_OUT_FIELDS), left_out=True) for row in rows]
                floor = sum(block.compressed_bytes for block in observation_blocks(bare, pairs))
            per_row = max(1.0, (size - floor) / (len(order) - dropped))
            more = len(order) if floor >= budget else int((size - budget) / per_row * 1.1) + 1
        for i in order[dropped : dropped + more]:
            rows[i].update(dict.fromkeys(LEFT_OUT_FIELDS), left_out=True)
        dropped = min(len(order), dropped + more)


def observation_blocks(rows: list[dict[str, Any]], pairs: list[list[Any]] | None) -> list[DataBlock]:
    """``obs-data`` (plain rows when small; interned rows and ``obs-values`` when large) and ``raw-data``."""
    if len(dumps(rows).encode("utf-8")) <= PLAIN_MAX_BYTES:
        blocks = [data_block("obs-data", rows)]
    else:
        packed, values = interned_rows(rows)
        blocks = [data_block("obs-data", packed), data_block("obs-values", values)]
    if pairs is not None:
        blocks.append(data_block("raw-data", referenced_blobs(rows, pairs)))
    return blocks


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


def raw_pairs(run_dir: Path) -> tuple[list[list[Any]] | None, str]:
    """The run's blobs (the raw bodies the rows reference) as ``[[id, value]]`` (None when there
    are none or they exceed :data:`MAX_RAW_COMPRESSED_BYTES` compressed), and the sentence the
    page shows when they are left out."""
    path = run_dir / BLOBS_FILE
    stored = path.stat().st_size if path.is_file() else 0
    pairs = blob_pairs(path) if 0 < stored <= MAX_RAW_COMPRESSED_BYTES else None
    packed = data_block("raw-data", pairs).compressed_bytes if pairs is not None else stored
    if not stored or (pairs is not None and packed <= MAX_RAW_COMPRESSED_BYTES):
        return pairs, ""
    return None, (
        f"Raw request and response bodies are not embedded ({packed / 2**20:.0f} MiB compressed); "
        f"read them with `fcbench show {run_dir.name} --raw` or open the run in `fcbench view`."
    )


def left_out_note(run_dir: Path, detail: EmbeddedDetail, budget: int = DETAIL_BUDGET_BYTES) -> str:
    """The sentence the page shows when the detail of some observations is left out."""
    if not detail.left_out:
        return ""
    return (
        f"The outcome, turns and raw bodies of {detail.left_out} observations are left out of this page "
        f"to keep its embedded detail under {budget / 2**20:g} MiB (passing ones first, then the oldest "
        f"repeats); every observation is still counted, filtered and ranked. "
        f"`fcbench view {run_dir.name}` shows them all."
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
