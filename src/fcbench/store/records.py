"""Record and manifest models, the append-only record writer and a tolerant reader.

A run directory holds ``manifest.json`` and ``records.jsonl`` (one :class:`Record` per line,
appended, flushed and fsynced in small batches). The reader tolerates a torn last line left by a
killed process and reports it instead of failing.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator, Mapping
from concurrent import futures
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    ValidationError,
    model_serializer,
)

from fcbench.contract import Anomaly, Continuation, ModeName, Outcome, SchemaChange, Usage
from fcbench.contract.json_text import parse_json
from fcbench.endpoints import label_of, target_label
from fcbench.errors import RunStateError
from fcbench.files import open_run_file, read_run_bytes, write_replacing
from fcbench.grading.judge import JudgeRating
from fcbench.grading.verdict import Verdict
from fcbench.store.blobs import BLOBS_FILE, BlobStore, DurableAppender, load_blobs
from fcbench.store.elide import elide_large_values, needs_eliding, restore_elided
from fcbench.suite.imports import ToolImport

RECORD_VERSION = "3"
"""Version of the record format. 3: a large argument is stored once (the raw text and a mismatch's
actual value left out, listed in ``elided``: :mod:`fcbench.store.elide`). 2: typed outcome,
anomalies, usage and verdict (with the recovery verdict as a typed part of it), and one anomaly
code per deviation. Runs of versions 1 and 2 still read."""
RECORDS_FILE = "records.jsonl"
MANIFEST_FILE = "manifest.json"

ObservationKey = tuple[str, str, int, str]
"""(target label, case id, repeat, mode): the identity of one observation in a plan."""


def observation_key(label: str, case_id: str, repeat: int, mode: str) -> ObservationKey:
    """The one identity of an observation, shared by the plan, records, resume and merge."""
    return (label, case_id, repeat, mode)


def record_key(data: Mapping[str, Any]) -> ObservationKey:
    """:func:`observation_key` of a record's JSON dict (as read by :func:`iter_record_dicts`)."""
    return observation_key(label_of(data.get("target") or {}), data["case_id"], data["repeat"], data["mode"])


class TargetRef(BaseModel):
    """Which endpoint, dialect and model produced an observation."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    endpoint: str
    """Endpoint name (built-in or from the config's ``endpoints``)."""
    dialect: str
    """Wire dialect the endpoint speaks."""
    model: str
    """Model id exactly as sent to the provider."""

    @property
    def label(self) -> str:
        """``endpoint:model``, the form used on the command line and in reports."""
        return target_label(self.endpoint, self.model)


class CaseRef(BaseModel):
    """What the metrics need to know about the case without reloading the suite."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    category: str
    """``normal``, ``boundary`` or ``adversarial``."""
    tags: list[str] = Field(default_factory=list)
    """The case's tags (``by_tag`` metrics)."""
    expected_kind: str
    """``tool``, ``tools``, ``text`` or ``clarification``."""
    prompt: str = ""
    """The user prompt, for reports."""


class OfferedOrder(BaseModel):
    """The order the tools were offered in, for a run with ``tool_order`` (see ``docs/tool-order.md``)."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    index: int
    """Which of the run's orders this is, from 0 (``repeat`` mod the number of orders)."""
    names: list[str]
    """The names of the tools offered, in the order offered."""
    plausible: list[str] = Field(default_factory=list)
    """The case's plausible tools (its expected tools and its ``confusable`` ones) that were
    offered, in the order offered: what the position-bias figure counts among."""


class RecordedTurn(BaseModel):
    """One model turn of a multi-turn observation and the tool results sent back for it."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    turn: int
    """Turn number, from 1."""
    outcome: Outcome
    """What the model did in this turn."""
    anomalies: list[Anomaly] = Field(default_factory=list)
    """The adapter's anomalies of this turn."""
    finish_reason: str | None = None
    """The provider's finish or stop reason, as sent."""
    results: list[dict[str, Any]] = Field(default_factory=list)
    """One entry per call: ``call_id``, ``name``, ``content`` sent back, ``is_error``, ``error_code``,
    ``source`` (``fake``, ``inject``, or ``limit``: not executed, over ``max_calls_per_turn``, a
    ``LIMIT_EXCEEDED`` result), ``side_effect``, ``replayed``; ``deliveries`` (one entry per
    delivery to the fake tools) when the call was delivered more than once (tool fault
    ``duplicate_delivery``); ``truncated_from_bytes`` (the original size) when ``content`` is
    a truncation envelope (over ``max_result_bytes``); ``lost_result`` (the real result of a write
    that committed while the model was sent a timeout, tool fault ``lost_result``); and
    ``sent_position`` (where among the turn's results it was sent, tool fault ``reorder_results``).
    A fake tool's success ``content`` carries ``evidence``: ``{"source", "retrieved_at"}`` (which
    fake answered, and when, RFC 3339 UTC)."""
    latency_ms: float | None = None
    """Wall time of this turn's exchange, retries included."""
    attempts: int = 1
    """HTTP attempts this turn took."""
    usage: Usage = Field(default_factory=Usage)
    """Tokens of this turn as reported."""
    continued_from: str | None = None
    """Stateful continuation: the provider's id of the previous turn this request continued
    (``previous_response_id``); null when the turn sent the whole conversation."""


class Elided(BaseModel):
    """A value a record left out because it holds it once already (:mod:`fcbench.store.elide`)."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    at: str
    """JSON pointer (RFC 6901) into the record of the value left out: a call's ``raw_arguments``
    (null in its place) or a mismatch's ``actual`` (a preview in its place)."""
    how: Literal["arguments", "blob", "copy"]
    """``arguments``: the compact JSON text of the arguments at ``source``; ``blob``: the text of
    blob ``source`` in ``blobs.jsonl.gz``; ``copy``: the value at ``source``."""
    source: str
    """A JSON pointer into the record, or a blob id (``blob``)."""
    bytes: int
    """Size of the value left out (UTF-8 bytes of its text)."""


class Record(BaseModel):
    """One observation: target x case x repeat x mode, with everything needed to re-grade it."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    run_id: str
    """The run this observation belongs to."""
    seq: int
    """Position in the plan (stable across resume and shards)."""
    started_at: str
    """UTC time the observation started, ISO 8601 with milliseconds."""
    dataset_version: str
    """The suite's dataset version."""
    target: TargetRef
    """Which endpoint, dialect and model."""
    case_id: str
    """The case's id in the suite."""
    case: CaseRef
    """What the metrics need of the case."""
    repeat: int
    """Repeat index, from 0."""
    mode: ModeName
    """One of the names of :data:`fcbench.contract.MODES`."""
    outcome: Outcome
    """The canonical outcome (the first turn's for multi-turn modes, or the provider error that cut it)."""
    anomalies: list[Anomaly] = Field(default_factory=list)
    """Deviations the adapter noticed in that outcome, recorded instead of fixed."""
    verdict: Verdict | None = None
    """The grader's verdict (with ``recovery`` for multi-turn modes); only grading decides ``passed``."""
    latency_ms: float | None = None
    """Wall time of the exchange(s), retries included (summed over the turns)."""
    usage: Usage = Field(default_factory=Usage)
    """Tokens as reported by the provider (summed over the turns; null when not reported)."""
    cost_usd: float | None = None
    """Cost from the price table; null when a price or a token count is unknown."""
    attempts: int = 1
    """HTTP attempts, retries included (summed over the turns)."""
    schema_changes: list[SchemaChange] = Field(default_factory=list)
    """Edits the dialect's schema transform made to the offered tools."""
    notes: list[str] = Field(default_factory=list)
    """Semantics the adapter could not map exactly (e.g. a tool_choice the dialect lacks)."""
    turns: list[RecordedTurn] = Field(default_factory=list)
    """Multi-turn modes: every turn's outcome and the tool results sent back."""
    continuation: Continuation | None = None
    """Multi-turn modes: how the later turns were sent, ``stateless`` (whole conversation) or
    ``stateful`` (by the provider's stored id: the run asked for it and the dialect can); null
    for single-turn modes."""
    raw: dict[str, Any] = Field(default_factory=dict)
    """Redacted raw exchange: ``{"request": ..., "response": ...}`` (``{"exchanges": [...]}`` for
    multi-turn modes); bodies may be references into ``blobs.jsonl.gz``."""
    error: str | None = None
    """Harness error text, when the harness itself failed."""
    elided: list[Elided] = Field(default_factory=list, exclude_if=lambda elided: not elided)
    """Large values held once and left out of their other places (format 3; left out when none):
    readers put them back (:func:`restored_record`)."""
    judge: JudgeRating | None = Field(default=None, exclude_if=lambda rating: rating is None)
    """The optional judge's rating of a text reply, beside the verdict and never changing it
    (``fcbench run --judge``; :mod:`fcbench.grading.judge`); left out when no judge was asked."""
    cached: bool = Field(default=False, exclude_if=lambda cached: not cached)
    """The answer came from the response cache (``fcbench run --cache``), not from the provider:
    reports count it and leave it out of stability, latency and cost; left out when false."""
    tool_order: OfferedOrder | None = Field(default=None, exclude_if=lambda order: order is None)
    """The order the tools were offered in (a run with ``tool_order``); left out otherwise."""

    @property
    def key(self) -> ObservationKey:
        """Identity of the observation in the plan: (target label, case id, repeat, mode)."""
        return observation_key(self.target.label, self.case_id, self.repeat, self.mode)

    def raw_argument_texts(self) -> Iterator[str | None]:
        """The raw argument text of every call of the outcome and the turns."""
        for outcome in [self.outcome, *(turn.outcome for turn in self.turns)]:
            for call in getattr(outcome, "calls", None) or []:
                yield call.raw_arguments


def record_line(record: Record, store_text: Any) -> str:
    """The JSON line of ``record`` (without its newline), its large values held once
    (:func:`fcbench.store.elide.elide_large_values`; ``store_text`` puts a raw text in the blobs)."""
    text = record.model_dump_json()
    if record.elided or not needs_eliding(record.raw_argument_texts()):
        return text
    data = json.loads(text)
    elided = elide_large_values(data, store_text)
    if not elided:
        return text
    data["elided"] = elided
    return Record.model_validate(data).model_dump_json()


def restored_record(data: dict[str, Any], blobs: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """A record dict with its left-out values put back, in place (``blobs``: the run's blobs, for raw
    texts stored there; without them those stay listed in ``elided``)."""
    elided = data.get("elided")
    if isinstance(elided, list) and elided:
        left = restore_elided(data, elided, blobs)
        if left:
            data["elided"] = left
        else:
            del data["elided"]
    return data


class PinnedTarget(BaseModel):
    """One target as a run's manifest pins it; it writes back exactly the keys it was given (an
    older manifest's entry, lacking some, is written as it was read)."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    name: str | None = None
    """The config's name for the target, else its label (absent in older manifests)."""
    label: str | None = None
    """``endpoint:model`` as written (absent in some older manifests: :attr:`ident` is always known)."""
    endpoint: str
    """Endpoint name."""
    dialect: str
    """Wire dialect the endpoint speaks."""
    model: str
    """Model id exactly as sent to the provider."""
    base_url: str | list[str] | None = None
    """Where requests went: the endpoint's URLs, or the managed service's name."""
    auth: str | None = None
    """How the key was sent (:data:`fcbench.endpoints.AuthScheme`)."""
    api_version: str | None = None
    """The endpoint's API version, written only when it has one."""
    settings: dict[str, Any] | None = None
    """The target's own request settings (those not at their defaults), written only when any."""
    service: dict[str, Any] | None = None
    """What a managed service pins about itself (engine, model checksum, settings), when one served."""

    @model_serializer(mode="wrap")
    def _given_keys(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        given = self.model_fields_set
        return {key: value for key, value in handler(self).items() if key in given}

    @property
    def ident(self) -> str:
        """``endpoint:model`` (:func:`fcbench.endpoints.target_label`), how records name the target."""
        return target_label(self.endpoint, self.model)

    @property
    def shown_name(self) -> str:
        """The config's name for the target, else :attr:`ident`."""
        return self.name or self.ident


class JudgePin(BaseModel):
    """The judge of a run as its manifest pins it: the target, the rubric's version and hash."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    target: PinnedTarget
    """The judge target, pinned like the run's targets."""
    rubric: str
    """The rubric's version (:data:`fcbench.grading.judge.RUBRIC_VERSION`)."""
    rubric_sha256: str
    """sha256 of the rubric's text the judge was given."""
    temperature: float
    """The temperature every judge request was sent with."""


class ToolSetPin(BaseModel):
    """One tool set of a run's suite as its manifest pins it: a hash per tool, and who was offered it."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    tools: dict[str, str]
    """Tool name -> sha256 (hex) of the canonical JSON of its name, description and parameters."""
    cases: list[str] = Field(default_factory=list)
    """Ids of the suite's cases offered this set, in suite order."""


class Manifest(BaseModel):
    """Everything pinned for a run so two runs can be compared honestly."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    run_id: str
    """``YYYYmmdd-HHMMSS-xxxxxx``."""
    fcbench_version: str
    """The fcbench version that started the run."""
    record_version: str = RECORD_VERSION
    """Version of the record format of ``records.jsonl``."""
    suite: str
    """Suite name."""
    suite_ref: str = ""
    """What loads the suite again: a built-in suite name or the suite folder's absolute path."""
    dataset_version: str
    """The suite's dataset version."""
    dataset_hash: str
    """Hash of the suite's tools, system prompt and cases."""
    config_hash: str
    """Hash of the measured part of the config (not concurrency, timeouts or retries)."""
    targets: list[PinnedTarget]
    """One entry per target, in the config's order."""
    modes: list[str]
    """Modes of the run, in plan order."""
    repeats: int
    """Repeats per case and mode."""
    temperature: float | None
    """Temperature sent (null: the provider's default)."""
    seed: int
    """Seed sent to providers that accept one."""
    planned: int
    """Observations planned (of this shard, when sharded)."""
    planned_by: dict[str, dict[str, int]] = Field(default_factory=dict)
    """Planned observations per target label and mode (modes apply to different cases)."""
    shard: str | None = None
    """``I/N`` when this directory holds one shard of a plan."""
    continuation: Continuation = "stateless"
    """Multi-turn modes: ``stateless`` (whole conversation replayed each turn) or ``stateful``
    (continued by the provider's stored id where the dialect can; config ``continuation``)."""
    tool_faults: list[str] = Field(default_factory=list)
    """Faults injected between the model and the fake tools (config ``tool_faults``, e.g.
    ``duplicate_delivery``); empty for an ordinary run."""
    started_at: str
    """UTC start time, ISO 8601."""
    finished_at: str | None = None
    """UTC time every planned observation was recorded; null while incomplete."""
    filters: dict[str, Any] = Field(default_factory=dict)
    """Case filters (``categories``, ``tags``, ``cases``) or, for compat runs, the probe selection."""
    system_prompt: str | None = None
    """``none`` when no system prompt was sent, else ``sha256:<hex>`` of the one sent (null in runs
    recorded before this field existed)."""
    tool_imports: list[ToolImport] = Field(default_factory=list)
    """Tool sets converted from another format or listed by an MCP server: source, format, hash, count."""
    judge: JudgePin | None = Field(default=None, exclude_if=lambda pin: pin is None)
    """The judge that rated the run's text replies (``--judge``), with its rubric; left out without one."""
    cache: bool = Field(default=False, exclude_if=lambda on: not on)
    """The run reused answers from a response cache (``--cache``), which a resume must agree on;
    left out when off."""
    tool_order: str | None = Field(default=None, exclude_if=lambda order: order is None)
    """``reverse`` or ``shuffle:K``: the tools were offered in several orders per case (config
    ``tool_order``); left out for a run that offered them as the suite lists them."""
    tool_sets: dict[str, ToolSetPin] = Field(default_factory=dict, exclude_if=lambda sets: not sets)
    """Tool set name (``inline:<case id>`` for a case's own list) -> its per-tool hashes and cases, so
    ``compare`` can name the tools that changed; empty in runs recorded before this field existed."""


def write_manifest(run_dir: Path, manifest: Manifest) -> None:
    """Write ``manifest.json`` atomically (:func:`~fcbench.files.write_replacing`)."""
    write_replacing(run_dir / MANIFEST_FILE, manifest.model_dump_json(indent=2) + "\n")


def read_manifest(run_dir: Path) -> Manifest:
    """Read ``manifest.json`` of a run directory, with a clear error if it is missing or invalid."""
    path = run_dir / MANIFEST_FILE
    data = read_run_bytes(path, missing=f"{run_dir}: not a run directory (no {MANIFEST_FILE})")
    try:
        return Manifest.model_validate_json(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise RunStateError(
            f"{path}: not UTF-8 text (byte {exc.start}); the run directory is damaged"
        ) from None
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        where = ".".join(str(p) for p in first["loc"]) or "(root)"
        raise RunStateError(f"{path}: invalid manifest: {where}: {first['msg']}") from exc


class RecordWriter(DurableAppender):
    """Appends records to ``records.jsonl`` in small batches, each flushed and fsynced.

    Raw exchanges are compacted through a :class:`~fcbench.store.blobs.BlobStore` beside the records.
    A batch is written when it holds ``batch`` records or its oldest record waited ``max_wait_s``:
    blobs first (fsynced), then the records that reference them, so a crash loses at most the
    observations of the unwritten batches, which a resumed run observes again.

    With ``background``, batches are written by one thread of their own, in order, so the caller
    (the run's event loop) never waits for the disk; a batch that failed to write raises at the
    next :meth:`append`, :meth:`sync` or :meth:`close`, and :meth:`close` waits for every batch.
    """

    def __init__(
        self, path: Path, batch: int = 32, max_wait_s: float = 1.0, background: bool = False
    ) -> None:
        self._path = path
        self._batch = batch
        self._max_wait_s = max_wait_s
        self._pending: list[str] = []
        self._oldest = 0.0
        truncate_torn_tail(path)
        self._blobs = BlobStore(path.with_name(BLOBS_FILE))
        self._file = open_run_file(path, "a", encoding="utf-8")
        self._writer = (
            futures.ThreadPoolExecutor(1, thread_name_prefix="fcbench-records") if background else None
        )
        self._batches: list[futures.Future[None]] = []

    def append(self, record: Record) -> None:
        """Queue one record (its raw exchange compacted); write the batch when it is due."""
        if record.raw:
            record = record.model_copy(update={"raw": self._blobs.compact_raw(record.raw)})
        if not self._pending:
            self._oldest = time.monotonic()
        self._pending.append(record_line(record, self._blobs.store_text) + "\n")
        if len(self._pending) >= self._batch or time.monotonic() - self._oldest >= self._max_wait_s:
            self.sync()

    def sync_if_due(self) -> None:
        """Write the queued records when the oldest has waited ``max_wait_s`` (called on a timer, so a
        finished observation reaches the disk even when no other one follows it)."""
        if self._pending and time.monotonic() - self._oldest >= self._max_wait_s:
            self.sync()

    @property
    def max_wait_s(self) -> float:
        """How long a finished record may wait in memory before it is written."""
        return self._max_wait_s

    def sync(self) -> None:
        """Write the queued blobs and records (in the background thread when there is one)."""
        if self._writer is None:
            self._write_batch(self._blobs.take_pending(), self.take_pending())
            return
        self._raise_failed(wait=False)
        self._batches.append(
            self._writer.submit(self._write_batch, self._blobs.take_pending(), self.take_pending())
        )

    def _write_batch(self, blobs: list[str], records: list[str]) -> None:
        """The blobs (written and fsynced first, so no record points at a missing blob), then the records."""
        self._blobs.write_durably(blobs)
        self.write_durably(records)

    def _raise_failed(self, wait: bool) -> None:
        """Raise the error of the first batch that failed to write; forget the batches written."""
        if wait:
            futures.wait(self._batches)
        while self._batches and self._batches[0].done():
            self._batches.pop(0).result()

    def close(self) -> None:
        """Sync and close the records and the blob files (after every batch is written)."""
        try:
            if not self._file.closed:
                self.sync()
            self._raise_failed(wait=True)
        finally:
            if self._writer is not None:
                self._writer.shutdown(wait=True)
            self._batches.clear()  # the first failure is raised; the batches after it failed alike
            self._file.close()
            self._blobs.close()

    def __enter__(self) -> RecordWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def truncate_torn_tail(path: Path) -> None:
    """Drop a torn (unterminated) last line so appended records start on a fresh line."""
    try:
        fh = open_run_file(path, "r+b")
    except FileNotFoundError:
        return
    with fh:
        size = fh.seek(0, os.SEEK_END)
        if size == 0:
            return
        fh.seek(size - 1)
        if fh.read(1) == b"\n":
            return
        pos = size - 1
        while pos > 0:
            step = min(4096, pos)
            fh.seek(pos - step)
            chunk = fh.read(step)
            idx = chunk.rfind(b"\n")
            if idx >= 0:
                fh.truncate(pos - step + idx + 1)
                return
            pos -= step
        fh.truncate(0)


_IDENTITY_TYPES: Mapping[str, type | tuple[type, ...]] = {
    "case_id": str,
    "repeat": int,
    "mode": str,
    "target": dict,
    "outcome": dict,
}
"""The fields every record line must hold, with their types, to count as an observation."""


def is_record(data: Any) -> bool:
    """Whether a decoded line is a record: an object whose identity fields have the right types."""
    return isinstance(data, dict) and all(
        isinstance(data.get(key), kind) and not isinstance(data.get(key), bool)
        for key, kind in _IDENTITY_TYPES.items()
    )


@dataclass
class DamagedLines:
    """Counts the lines of a records file that a reader skipped as damaged (the observations they
    held are missing)."""

    count: int = 0
    """Lines that are not JSON (or nest too deeply to decode), JSON that is no record (where the
    reader skips it rather than refusing the file), and a torn last line."""


def damaged_note(count: int) -> str:
    """What every report and reader prints of ``count`` damaged lines (empty when there are none)."""
    if not count:
        return ""
    lines = "line" if count == 1 else "lines"
    return f"{count} damaged record {lines} skipped (the observations they held are missing)"


def iter_record_dicts(path: Path, damaged: DamagedLines | None = None) -> Iterator[dict[str, Any]]:
    """Yield each complete record line as decoded JSON (check it with :func:`is_record`).

    A torn last line (a killed writer) ends the file; it and a line that is not JSON are skipped
    (and counted in ``damaged`` when given).
    """
    try:
        fh = open_run_file(path)
    except FileNotFoundError:
        return
    with fh:
        for raw in fh:
            if not raw.endswith(b"\n"):
                if damaged is not None:
                    damaged.count += 1
                return
            try:
                yield parse_json(raw)
            except (ValueError, RecursionError):
                if damaged is not None:
                    damaged.count += 1


def iter_records(path: Path) -> Iterator[Record]:
    """Yield each complete record as a :class:`Record`, its left-out values put back (raw texts
    from the run's blobs, read once when a record needs them)."""
    blobs: dict[str, Any] | None = None
    for data in iter_record_dicts(path):
        if blobs is None and _needs_blobs(data):
            blobs = load_blobs(path.parent)
        yield Record.model_validate(restored_record(data, blobs))


def _needs_blobs(data: Any) -> bool:
    elided = data.get("elided") if isinstance(data, dict) else None
    return isinstance(elided, list) and any(isinstance(e, dict) and e.get("how") == "blob" for e in elided)


def run_record_dicts(run_dir: Path) -> Iterator[dict[str, Any]]:
    """The record dicts of a run directory, checked first: :class:`RunStateError` when ``run_dir``
    is not a run directory (no valid manifest) or holds no records file."""
    read_manifest(run_dir)
    path = run_dir / RECORDS_FILE
    if not os.path.lexists(path):
        raise RunStateError(f"{run_dir}: no {RECORDS_FILE}")
    return iter_record_dicts(path)
