"""Observation queries over a run's ``records.jsonl``, streamed: filters, search, paging, one record.

Nothing is held per record: each query reads the file again, record by record, and keeps only the
page it answers; raw request and response bodies stay references into the blob store until one
observation's are asked for (:func:`raw_of`). Observations are numbered by their position among the
file's records, as in the static HTML report, and listed as there: failures first, then provider or
harness errors, then passes, by number within each.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fcbench.report.html_data import dumps, observation_row, record_views
from fcbench.store.blobs import expand_blobs, load_blob_closure
from fcbench.store.view import RecordView

FILTERS: tuple[str, ...] = ("target", "mode", "category", "tag", "decision", "anomaly", "result", "case", "q")
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


def rows(run_dir: Path, several_modes: bool) -> Iterator[tuple[dict[str, Any], str]]:
    """Each record's row (:func:`~fcbench.report.html_data.observation_row`, with its ``column``) and
    its case's prompt."""
    for n, rec in enumerate(record_views(run_dir)):
        row = observation_row(rec, n)
        row["column"] = f"{row['target']} [{row['mode']}]" if several_modes else row["target"]
        yield row, str(rec.case_data().get("prompt", ""))


def search_text(row: dict[str, Any], prompt: str) -> str:
    """What the search looks in: prompt, outcome, conversation and error, lower-cased."""
    turns = dumps(row["turns"]) if row["turns"] else ""
    return "\n".join((prompt, dumps(row["outcome"]), turns, str(row["error"] or ""))).lower()


def keep(row: dict[str, Any], prompt: str, f: dict[str, str]) -> bool:
    """Whether an observation passes the filters ``f`` (the page's ``keep`` function, server-side)."""
    checks = (
        ("target", lambda v: row["column"] == v),
        ("mode", lambda v: row["mode"] == v),
        ("category", lambda v: row["category"] == v),
        ("tag", lambda v: v in row["tags"]),
        ("decision", lambda v: row["decision"] == v),
        ("anomaly", lambda v: v in row["anomalies"]),
        ("result", lambda v: row["result"] == v),
        ("case", lambda v: row["case_id"] == v),
        ("q", lambda v: v.lower() in search_text(row, prompt)),
    )
    return all(check(f[name]) for name, check in checks if f.get(name))


def query(run_dir: Path, f: dict[str, str], offset: int, limit: int, several_modes: bool) -> Page:
    """The observations matching ``f``, from ``offset`` (at most ``limit``, capped at :data:`MAX_LIMIT`).

    One pass keeps the numbers of the matching observations per group (8 bytes each); a second
    reads the file up to the last observation of the page only."""
    limit = max(0, min(limit, MAX_LIMIT))
    offset = max(0, offset)
    matching: dict[str, array[int]] = {group: array("q") for group in ORDER}
    for row, prompt in rows(run_dir, several_modes):
        if keep(row, prompt, f):
            matching[row["result"]].append(row["n"])
    wanted: list[int] = []
    skip = offset
    for group in ORDER:
        numbers = matching[group]
        if len(wanted) < limit:
            wanted.extend(numbers[skip : skip + limit - len(wanted)])
        skip = max(0, skip - len(numbers))
    page: dict[int, dict[str, Any]] = {}
    if wanted:
        last, need = max(wanted), set(wanted)
        for row, _ in rows(run_dir, several_modes):
            if row["n"] in need:
                page[row["n"]] = {key: row[key] for key in LIST_FIELDS}
            if row["n"] >= last:
                break
    return Page(
        total=sum(len(a) for a in matching.values()),
        offset=offset,
        rows=[page[n] for n in wanted if n in page],
    )


def record_at(run_dir: Path, n: int) -> RecordView | None:
    """Record number ``n`` (its position among the file's records), or None."""
    if n < 0:
        return None
    for i, rec in enumerate(record_views(run_dir)):
        if i == n:
            return rec
    return None


def observation(run_dir: Path, n: int, several_modes: bool) -> dict[str, Any] | None:
    """Observation ``n`` as the page shows it, its raw bodies left out (see :func:`raw_of`)."""
    rec = record_at(run_dir, n)
    if rec is None:
        return None
    row = observation_row(rec, n)
    row["column"] = f"{row['target']} [{row['mode']}]" if several_modes else row["target"]
    row["request"] = row["response"] = None
    return row


def raw_of(run_dir: Path, n: int) -> dict[str, Any] | None:
    """The raw request and response of observation ``n``, expanded from the blob store (only the blobs
    they reference are read)."""
    rec = record_at(run_dir, n)
    if rec is None:
        return None
    row = observation_row(rec, n)
    values = [row["request"], row["response"]]
    blobs = load_blob_closure(run_dir, values)
    return {"request": expand_blobs(values[0], blobs), "response": expand_blobs(values[1], blobs)}
