"""``fcbench export``: one row per observation, raw bodies expanded, as Parquet, CSV or JSON Lines.

Columns (:data:`COLUMNS`): run and observation identity, the target's endpoint, dialect, model,
label and name, the case's category and tags, the verdict's main fields, the first call's tool
and arguments, the case's expected part (from the run's suite), the provider error code, the
anomalies, latency, tokens, cost, attempts, the raw request and response (expanded from
``blobs.jsonl.gz``) and the harness error. JSON-valued columns hold JSON text.

Everything streams: records are read one at a time and written in batches (Parquet row groups of
:data:`BATCH_ROWS` rows, CSV and JSON Lines line by line), and raw bodies are expanded through a
:class:`BlobIndex`, an on-disk index of the run's blobs built in one pass, so memory stays bounded
whatever the size of the run. Parquet and JSON Lines hold the values exactly; CSV guards text
cells for spreadsheets as ``fcbench report --format csv`` does (a cell that would start a formula
gets a leading ``'``, line breaks become spaces).
"""

from __future__ import annotations

import csv
import json
import re
import sqlite3
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Literal

import msgspec

from fcbench.errors import ConfigError, FcbenchError
from fcbench.report.csvfmt import FORMULA_STARTS
from fcbench.store.blobs import BLOBS_FILE, blob_refs, expand_blobs, iter_blobs
from fcbench.store.records import Manifest, read_manifest
from fcbench.store.view import UNCOUNTED, RecordView, UsageView, run_views
from fcbench.suite.loader import Suite, load_suite

ColumnKind = Literal["str", "int", "float", "bool", "list", "json"]
"""How a column's values are typed: ``json`` columns hold JSON text, ``list`` a list of strings."""


@dataclass(frozen=True)
class Column:
    """One column of the export."""

    name: str
    """Column name."""
    kind: ColumnKind
    """Value type (see :data:`ColumnKind`)."""


_COLUMN_KINDS: tuple[tuple[str, ColumnKind], ...] = (
    ("run_id", "str"),
    ("seq", "int"),
    ("case_id", "str"),
    ("endpoint", "str"),
    ("dialect", "str"),
    ("model", "str"),
    ("target", "str"),
    ("target_name", "str"),
    ("mode", "str"),
    ("repeat", "int"),
    ("category", "str"),
    ("tags", "list"),
    ("passed", "bool"),
    ("decision", "str"),
    ("schema_valid", "bool"),
    ("semantic_exact", "bool"),
    ("tool_called", "str"),
    ("arguments", "json"),
    ("expected", "json"),
    ("provider_error", "str"),
    ("anomalies", "json"),
    ("latency_ms", "float"),
    ("input_tokens", "int"),
    ("output_tokens", "int"),
    ("cost_usd", "float"),
    ("attempts", "int"),
    ("raw_request", "json"),
    ("raw_response", "json"),
    ("error", "str"),
)

COLUMNS: tuple[Column, ...] = tuple(Column(name, kind) for name, kind in _COLUMN_KINDS)
"""The export's columns, in order."""

BATCH_ROWS = 1000
"""Rows per Parquet row group (the most rows held in memory at once)."""

PARQUET_INSTALL = "pip install 'fcbench[parquet]'"
"""The command that installs what Parquet export needs."""

Row = dict[str, Any]


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


class BlobIndex:
    """The blobs of a run in a temporary SQLite file (one streaming pass over ``blobs.jsonl.gz``),
    looked up by id, so expanding a record needs only the blobs it references in memory."""

    def __init__(self, run_dir: Path) -> None:
        self._dir = tempfile.TemporaryDirectory(prefix="fcbench-export-")
        self._db = sqlite3.connect(Path(self._dir.name) / "blobs.sqlite")
        self._db.execute("CREATE TABLE blob (id TEXT PRIMARY KEY, value TEXT NOT NULL)")
        rows = ((b["id"], _dumps(b["value"])) for b in iter_blobs(run_dir / BLOBS_FILE))
        self._db.executemany("INSERT OR IGNORE INTO blob VALUES (?, ?)", rows)
        self._db.commit()

    def _fetch(self, ids: set[str]) -> dict[str, Any]:
        found: dict[str, Any] = {}
        for blob_id in ids:
            row = self._db.execute("SELECT value FROM blob WHERE id = ?", (blob_id,)).fetchone()
            if row is not None:
                found[blob_id] = json.loads(row[0])
        return found

    def expand(self, value: Any) -> Any:
        """``value`` with every blob reference replaced by the stored value (a reference to a blob
        the file does not hold stays as it is)."""
        blobs: dict[str, Any] = {}
        wanted = blob_refs(value)
        while wanted:
            found = self._fetch(wanted)
            blobs.update(found)
            wanted = set().union(*(blob_refs(v) for v in found.values())) - set(blobs) if found else set()
        return expand_blobs(value, blobs)

    def close(self) -> None:
        """Drop the temporary index."""
        self._db.close()
        self._dir.cleanup()

    def __enter__(self) -> BlobIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def run_suite(manifest: Manifest) -> tuple[Suite | None, str]:
    """The suite a run was made from, and a note when it cannot be loaded or changed since the run
    (then expected parts are unknown, or come from the suite as it is now)."""
    ref = manifest.suite_ref or manifest.suite
    try:
        suite = load_suite(ref)
    except FcbenchError as exc:
        return None, f"suite {ref!r} not available ({str(exc).splitlines()[0]}): expected values unknown"
    if suite.dataset_hash != manifest.dataset_hash:
        return suite, f"suite {ref!r} changed since the run: expected values are from its current files"
    return suite, ""


def target_names(manifest: Manifest) -> dict[str, str]:
    """The config's name of each target, by label."""
    return {t.ident: t.shown_name for t in manifest.targets}


def _raw_part(raw: Mapping[str, Any], key: str) -> Any:
    """The raw request or response of a record; for multi-turn records the list of every turn's."""
    if "exchanges" in raw and isinstance(raw["exchanges"], list):
        return [e.get(key) if isinstance(e, Mapping) else None for e in raw["exchanges"]]
    return raw.get(key)


def _json_or_none(value: Any) -> str | None:
    return None if value is None else _dumps(value)


def _given(value: Any) -> Any:
    """A view's field, None when the record did not hold it."""
    return None if value is msgspec.UNSET else value


def _count(value: Any) -> int | None:
    """A recorded token count, None when it is not one."""
    return None if value == UNCOUNTED else value


def record_row(
    view: RecordView, raw: Mapping[str, Any], names: Mapping[str, str], expected: Mapping[str, str]
) -> Row:
    """One export row of a record, with ``raw`` its expanded raw exchange."""
    case = view.case_data()
    verdict = view.verdict_data() or {}
    outcome = view.outcome
    calls = outcome.calls if isinstance(outcome.calls, list) else []
    first = calls[0].data() if calls else None
    usage = view.usage or UsageView()
    label = view.label
    return {
        "run_id": view.run_id,
        "seq": view.seq,
        "case_id": view.case_id,
        "endpoint": _given(view.target.endpoint),
        "dialect": _given(view.target.dialect),
        "model": _given(view.target.model),
        "target": label,
        "target_name": names.get(label, label),
        "mode": view.mode,
        "repeat": view.repeat,
        "category": case.get("category"),
        "tags": [str(t) for t in case.get("tags") or []],
        "passed": verdict.get("passed"),
        "decision": verdict.get("decision"),
        "schema_valid": verdict.get("schema_valid"),
        "semantic_exact": verdict.get("semantic_exact"),
        "tool_called": first["name"] if first else None,
        "arguments": _json_or_none(first["arguments"]) if first else None,
        "expected": expected.get(view.case_id),
        "provider_error": _given(outcome.code) if outcome.kind == "provider_error" else None,
        "anomalies": _dumps(view.anomaly_data()),
        "latency_ms": view.latency_ms,
        "input_tokens": _count(usage.input_tokens),
        "output_tokens": _count(usage.output_tokens),
        "cost_usd": view.cost_usd,
        "attempts": view.attempts,
        "raw_request": _json_or_none(_raw_part(raw, "request")),
        "raw_response": _json_or_none(_raw_part(raw, "response")),
        "error": view.error,
    }


def iter_rows(run_dir: Path, blobs: BlobIndex) -> Iterator[Row]:
    """Every observation of ``run_dir`` as an export row, in file order."""
    manifest = read_manifest(run_dir)
    suite, _ = run_suite(manifest)
    expected = {c.id: _dumps(c.expected.model_dump(mode="json")) for c in suite.cases} if suite else {}
    names = target_names(manifest)
    for view in run_views(run_dir):
        raw = view.raw_data()
        expanded = blobs.expand(raw) if isinstance(raw, dict) else {}
        yield record_row(view, expanded, names, expected)


_LINE_BREAKS = re.compile(r"[\r\n\x0b\x0c\x85\u2028\u2029]+")
"""What a spreadsheet may read as the end of a row, even inside a quoted cell."""


def _csv_cell(value: Any, kind: ColumnKind) -> str:
    if value is None:
        return ""
    if kind == "bool":
        return "true" if value else "false"
    if kind == "list":
        value = _dumps(value)
    elif kind == "float" and isinstance(value, float):
        return repr(value)
    text = _LINE_BREAKS.sub(" ", str(value))
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def write_csv(rows: Iterable[Row], out: IO[bytes]) -> int:
    """CSV with a header row, one line per row; returns the rows written."""
    text = _TextOut(out)
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow([c.name for c in COLUMNS])
    count = 0
    for row in rows:
        writer.writerow([_csv_cell(row[c.name], c.kind) for c in COLUMNS])
        count += 1
    return count


def write_jsonl(rows: Iterable[Row], out: IO[bytes]) -> int:
    """One JSON object per line, columns in order; returns the rows written."""
    count = 0
    for row in rows:
        out.write((_dumps({c.name: row[c.name] for c in COLUMNS}) + "\n").encode("utf-8"))
        count += 1
    return count


def _pyarrow() -> tuple[Any, Any]:
    """``pyarrow`` and ``pyarrow.parquet``, or a clear error naming the install command."""
    try:
        import pyarrow
        import pyarrow.parquet
    except ImportError:
        raise ConfigError(
            f"Parquet export needs pyarrow, which is not installed: {PARQUET_INSTALL}", key="--format"
        ) from None
    return pyarrow, pyarrow.parquet


def _arrow_schema(pa: Any) -> Any:
    types = {
        "str": pa.string(),
        "json": pa.string(),
        "int": pa.int64(),
        "float": pa.float64(),
        "bool": pa.bool_(),
        "list": pa.list_(pa.string()),
    }
    return pa.schema([pa.field(c.name, types[c.kind]) for c in COLUMNS])


def write_parquet(rows: Iterable[Row], out: IO[bytes]) -> int:
    """Parquet, one row group per :data:`BATCH_ROWS` rows; returns the rows written."""
    pa, pq = _pyarrow()
    schema = _arrow_schema(pa)
    count = 0
    with pq.ParquetWriter(out, schema) as writer:
        batch: list[Row] = []
        for row in rows:
            batch.append(row)
            if len(batch) >= BATCH_ROWS:
                writer.write_table(pa.Table.from_pylist(batch, schema=schema))
                count += len(batch)
                batch = []
        if batch or not count:
            writer.write_table(pa.Table.from_pylist(batch, schema=schema))
            count += len(batch)
    return count


Writer = Callable[[Iterable[Row], IO[bytes]], int]

WRITERS: Mapping[str, Writer] = {
    "parquet": write_parquet,
    "csv": write_csv,
    "jsonl": write_jsonl,
}
"""Export format -> writer (rows in, bytes out, returns the row count)."""


class _TextOut:
    """A text ``write`` over a binary stream (what :mod:`csv` writes to)."""

    def __init__(self, out: IO[bytes]) -> None:
        self._out = out

    def write(self, text: str) -> int:
        return self._out.write(text.encode("utf-8"))


def export_run(run_dir: Path, fmt: str, out: IO[bytes]) -> int:
    """Write every observation of ``run_dir`` to ``out`` in format ``fmt``; returns the row count."""
    writer = WRITERS.get(fmt)
    if writer is None:
        raise ConfigError(f"unknown export format {fmt!r} (known: {', '.join(WRITERS)})", key="--format")
    if fmt == "parquet":
        _pyarrow()  # the missing extra is reported before any work
    read_manifest(run_dir)
    with BlobIndex(run_dir) as blobs:
        return writer(iter_rows(run_dir, blobs), out)
