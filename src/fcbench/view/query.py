"""Observation queries of ``fcbench view``, answered from the run's
:class:`~fcbench.view.table.ObservationTable` (built once per version of ``records.jsonl``, in the
pass that summarises the run): filters, search, paging, one observation and its raw bodies.

A query matches the filters in memory and reads only the lines of the page it answers, each with
one seek; raw request and response bodies stay references into the blob store until one
observation's are asked for (:func:`raw_of`), then only the gzip members holding its blobs are
read (:class:`~fcbench.store.index.BlobIndex`). Observations are numbered by their position among
the file's records, as in the static HTML report, and listed as there: failures first, then
provider or harness errors, then passes, by number within each.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fcbench.report.html_data import dumps, observation_row
from fcbench.store.blobs import BLOBS_FILE, expand_blobs
from fcbench.store.index import BlobIndex
from fcbench.store.records import RECORDS_FILE
from fcbench.store.view import RecordView
from fcbench.view.table import ObservationTable

FILTERS: tuple[str, ...] = (
    "target",
    "mode",
    "category",
    "tag",
    "decision",
    "anomaly",
    "result",
    "failure",
    "case",
    "q",
)
"""The filters of an observation query (the page's filter controls, the selected case, the search)."""
ORDER: tuple[str, ...] = ("fail", "not_scored", "pass")
"""Groups of the list, in order (an observation's ``result``)."""
LIST_FIELDS: tuple[str, ...] = (
    "n",
    "seq",
    "target",
    "column",
    "mode",
    "case_id",
    "repeat",
    "category",
    "tags",
    "decision",
    "result",
    "anomalies",
    "reasons",
)
"""The fields of an observation in a list (the rest comes with the observation itself)."""
MAX_LIMIT = 500


@dataclass(frozen=True)
class Page:
    """One page of matching observations."""

    total: int
    """Observations matching the filters."""
    offset: int
    """Position of the first row in the whole list."""
    rows: list[dict[str, Any]]
    """The observations of the page (:data:`LIST_FIELDS` only)."""


def column_of(row: dict[str, Any], several_modes: bool) -> str:
    """The matrix column an observation row belongs to: its target, with its mode when the run has
    several."""
    return f"{row['target']} [{row['mode']}]" if several_modes else str(row["target"])


def search_text(row: dict[str, Any], prompt: str) -> str:
    """What the search looks in: prompt, outcome, conversation and error, lower-cased."""
    turns = dumps(row["turns"]) if row["turns"] else ""
    return "\n".join((prompt, dumps(row["outcome"]), turns, str(row["error"] or ""))).lower()


def index_row(table: ObservationTable, row: dict[str, Any], rec: RecordView, several_modes: bool) -> None:
    """Add one observation's row (:func:`~fcbench.report.html_data.observation_row`) to ``table``."""
    row["column"] = column_of(row, several_modes)
    table.add(row, search_text(row, str(rec.case_data().get("prompt", ""))))


def query(
    run_dir: Path, table: ObservationTable, f: dict[str, str], offset: int, limit: int, several_modes: bool
) -> Page:
    """The observations matching ``f``, from ``offset`` (at most ``limit``, capped at :data:`MAX_LIMIT`):
    matched in ``table``, then the page's lines read."""
    limit = max(0, min(limit, MAX_LIMIT))
    offset = max(0, offset)
    matching = table.matching(f, ORDER)
    wanted = matching[offset : offset + limit]
    views = table.offsets.views(run_dir / RECORDS_FILE, wanted)
    rows = []
    for n in wanted:
        if n in views:
            row = observation_row(views[n], n)
            row["column"] = column_of(row, several_modes)
            rows.append({key: row[key] for key in LIST_FIELDS})
    return Page(total=len(matching), offset=offset, rows=rows)


def observation(run_dir: Path, table: ObservationTable, n: int, several_modes: bool) -> dict[str, Any] | None:
    """Observation ``n`` as the page shows it, its raw bodies left out (see :func:`raw_of`)."""
    rec = table.offsets.view(run_dir / RECORDS_FILE, n)
    if rec is None:
        return None
    row = observation_row(rec, n)
    row["column"] = column_of(row, several_modes)
    row["request"] = row["response"] = None
    return row


def raw_of(run_dir: Path, table: ObservationTable, blobs: BlobIndex, n: int) -> dict[str, Any] | None:
    """The raw request and response of observation ``n``: its line read with one seek, the blobs
    they reference from the members that hold them."""
    rec = table.offsets.view(run_dir / RECORDS_FILE, n)
    if rec is None:
        return None
    row = observation_row(rec, n)
    values = [row["request"], row["response"]]
    found = blobs.closure(run_dir / BLOBS_FILE, values)
    return {"request": expand_blobs(values[0], found), "response": expand_blobs(values[1], found)}
