"""The one typed read of a record: :class:`RecordView`, decoded from its line without building the record.

Every reader above the store (metrics, reports, compat, history, the viewer, ``show``) reads records
as views, never as dicts. :data:`DECODER` (msgspec) reads a line straight into a view; the
scalars and the target's names are decoded, and the nested parts that only need reading once
per distinct value are kept as their JSON text (:class:`msgspec.Raw`): the case, the anomalies,
the verdict, the turns, the raw exchange and each call's fields. The aggregation memoises what
it derives from those by their text; a reader that wants a part decoded asks the view for it
(:meth:`RecordView.verdict_data`, :meth:`RecordView.case_data`, :meth:`OutcomeView.data`, ...).
:func:`iter_views` yields the view of every record of a file.

The decoder accepts only records of the ordinary shape. A line it refuses (a record with odd
types, a JSON literal such as ``NaN``, a lone surrogate escape, text that is not UTF-8, a line
that is not JSON) goes through :func:`view_of` on its :func:`json.loads` dict instead, which gives
the same view, or raises where the dict pass raised, so both paths count every record alike. The
decoder accepts nothing :func:`json.loads` refused, but for an integer literal longer than
Python's 4300-digit limit in a part the metrics do not decode, and nesting within a few levels of
the recursion limit.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import msgspec

from fcbench.endpoints import label_of
from fcbench.errors import RunStateError
from fcbench.files import open_run_file
from fcbench.grading.regrade import Observation, Regrader, regrader
from fcbench.store.elide import restore_elided
from fcbench.store.records import (
    RECORDS_FILE,
    DamagedLines,
    ObservationKey,
    Record,
    is_record,
    observation_key,
    read_manifest,
)
from fcbench.suite.loader import Suite

NULL = msgspec.Raw(b"null")
"""The JSON text of an absent field (the dict pass read an absent field as None)."""
EMPTY_LIST = msgspec.Raw(b"[]")
"""The anomalies of almost every record."""

DECODE_ERRORS = (msgspec.DecodeError, RecursionError, ValueError)
"""What :data:`DECODER` raises on a line it does not read (ValidationError is a DecodeError)."""

BLOCK_BYTES = 1 << 22
"""How much of ``records.jsonl`` is read at a time."""


def decoded(text: msgspec.Raw) -> Any:
    """A part kept as JSON text, decoded (None when it is not JSON to :func:`json.loads`)."""
    try:
        return json.loads(bytes(text))
    except (ValueError, RecursionError):
        return None


class CallView(msgspec.Struct, gc=False, omit_defaults=True):
    """One call of a ``tool_calls`` outcome, its fields as JSON text."""

    id: msgspec.Raw = NULL
    """The call's id (left out of :func:`encode_calls`: equal calls, equal text)."""
    name: msgspec.Raw = NULL
    """The tool name called."""
    arguments: msgspec.Raw = NULL
    """The parsed arguments (any JSON value, null when the raw arguments did not parse)."""
    raw_arguments: msgspec.Raw = NULL
    """The arguments as the model sent them."""
    parse_error: msgspec.Raw = NULL
    """Why the raw arguments did not parse, or null."""

    def data(self) -> dict[str, Any]:
        """The call as the record holds it."""
        return {field: decoded(getattr(self, field)) for field in self.__struct_fields__}


class OutcomeView(msgspec.Struct, gc=False):
    """A record's canonical outcome (fields the outcome did not hold are unset)."""

    kind: Any = msgspec.UNSET
    """``tool_calls``, ``text``, ``refusal`` or ``provider_error``."""
    code: Any = msgspec.UNSET
    """A provider error's code."""
    message: Any = msgspec.UNSET
    """A provider error's message."""
    status: Any = msgspec.UNSET
    """A provider error's HTTP status."""
    text: Any = msgspec.UNSET
    """The text of a text or refusal outcome (or beside tool calls)."""
    calls: list[CallView] | None = None
    """The calls of a ``tool_calls`` outcome."""

    def data(self) -> dict[str, Any]:
        """The outcome as the record holds it (the canonical outcome dict the graders take)."""
        found = {f: getattr(self, f) for f in ("kind", "code", "message", "status", "text")}
        out = {key: value for key, value in found.items() if value is not msgspec.UNSET}
        calls = self.calls
        if isinstance(calls, list):
            out["calls"] = [call.data() for call in calls]
        return out

    def call_names(self) -> list[str]:
        """The names of the outcome's calls (none unless it is ``tool_calls``)."""
        if self.kind != "tool_calls" or not isinstance(self.calls, list):
            return []
        return [str(decoded(call.name)) for call in self.calls]


class UsageView(msgspec.Struct, gc=False):
    """Token counts as recorded: integers or None (:func:`view_of` stands in :data:`UNCOUNTED` for any
    other value, which counts no tokens)."""

    input_tokens: int | None = None
    """Input tokens as reported."""
    output_tokens: int | None = None
    """Output tokens as reported."""
    cache_read_input_tokens: int | None = None
    """The part of the input tokens read from a prompt cache, as recorded (None: not reported)."""
    cache_creation_input_tokens: int | None = None
    """The part of the input tokens written to a prompt cache, as recorded (None: not reported)."""


UNCOUNTED = "uncounted"
"""A recorded token count that is neither an integer nor null."""


class TargetView(msgspec.Struct, gc=False):
    """The fields of a record's target that name its group (unset when absent, which is not null)."""

    endpoint: str | None | msgspec.UnsetType = msgspec.UNSET
    """Endpoint name."""
    model: str | None | msgspec.UnsetType = msgspec.UNSET
    """Model id."""
    dialect: str | None | msgspec.UnsetType = msgspec.UNSET
    """Wire dialect."""

    def as_dict(self) -> dict[str, Any]:
        """The target as the record held it (its other fields are never read)."""
        found = {"endpoint": self.endpoint, "model": self.model, "dialect": self.dialect}
        return {key: value for key, value in found.items() if value is not msgspec.UNSET}

    @property
    def label(self) -> str:
        """``endpoint:model`` (:func:`fcbench.endpoints.label_of`)."""
        return label_of(self.as_dict())


class RecordView(msgspec.Struct, gc=False):
    """One record as every reader reads it; the identity fields typed as :func:`is_record` wants."""

    target: TargetView
    """Which endpoint, dialect and model."""
    case_id: str
    """The case's id."""
    repeat: int
    """Repeat index, from 0."""
    mode: str
    """One of the names of :data:`fcbench.contract.MODES`."""
    outcome: OutcomeView
    """The canonical outcome."""
    case: msgspec.Raw = NULL
    """The case fields (:meth:`case_data`)."""
    anomalies: msgspec.Raw = NULL
    """The adapter's anomalies (:meth:`anomaly_data`)."""
    verdict: msgspec.Raw = NULL
    """The verdict (:meth:`verdict_data`)."""
    latency_ms: Any = None
    """Wall time of the exchange(s)."""
    usage: UsageView | None = None
    """Tokens as reported."""
    cost_usd: Any = None
    """Cost from the price table."""
    error: Any = None
    """Harness error text."""
    run_id: Any = None
    """The run this observation belongs to."""
    seq: Any = None
    """Position in the plan."""
    attempts: Any = None
    """HTTP attempts, retries included."""
    turns: msgspec.Raw = NULL
    """Multi-turn modes: every turn (:meth:`turn_data`)."""
    raw: msgspec.Raw = NULL
    """The redacted raw exchange, bodies maybe blob references (:meth:`raw_data`)."""
    schema_changes: msgspec.Raw = NULL
    """Edits the schema transform made to the offered tools (:meth:`schema_change_data`)."""
    notes: msgspec.Raw = NULL
    """Semantics the adapter could not map exactly (:meth:`note_data`)."""
    started_at: Any = None
    """UTC time the observation started."""
    dataset_version: Any = None
    """The suite's dataset version."""
    continuation: Any = None
    """Multi-turn modes: ``stateless`` or ``stateful``."""
    elided: msgspec.Raw = NULL
    """Large values left out of the line (record format 3): :meth:`restored` puts them back."""
    judge: msgspec.Raw = NULL
    """The optional judge's rating (:meth:`judge_data`)."""
    cached: Any = None
    """True when the answer came from the response cache (``--cache``)."""
    tool_order: msgspec.Raw = NULL
    """The order the tools were offered in, a run with ``tool_order`` (:meth:`tool_order_data`)."""

    @property
    def label(self) -> str:
        """The target label, ``endpoint:model``."""
        return self.target.label

    @property
    def key(self) -> ObservationKey:
        """Identity of the observation: (target label, case id, repeat, mode)."""
        return observation_key(self.target.label, self.case_id, self.repeat, self.mode)

    def verdict_data(self) -> dict[str, Any] | None:
        """The verdict, decoded; None when there is none (or it is not an object)."""
        found = decoded(self.verdict)
        return found if isinstance(found, dict) else None

    def case_data(self) -> dict[str, Any]:
        """The case fields, decoded (empty when absent or not an object)."""
        found = decoded(self.case)
        return found if isinstance(found, dict) else {}

    def anomaly_data(self) -> list[Any]:
        """The adapter's anomalies, decoded (empty when absent or not a list)."""
        return _list(decoded(self.anomalies))

    def judge_data(self) -> dict[str, Any] | None:
        """The judge's rating, decoded; None when no judge was asked (or it is not an object)."""
        found = decoded(self.judge)
        return found if isinstance(found, dict) else None

    def tool_order_data(self) -> dict[str, Any] | None:
        """The order the tools were offered in, decoded; None when the run kept the suite's order."""
        found = decoded(self.tool_order)
        return found if isinstance(found, dict) else None

    def turn_data(self) -> list[Any]:
        """The turns, decoded (empty for single-turn modes)."""
        return _list(decoded(self.turns))

    def raw_data(self) -> Any:
        """The raw exchange, decoded (None when absent)."""
        return decoded(self.raw)

    def schema_change_data(self) -> list[Any]:
        """The schema changes, decoded (empty when none)."""
        return _list(decoded(self.schema_changes))

    def note_data(self) -> list[Any]:
        """The adapter's notes, decoded (empty when none)."""
        return _list(decoded(self.notes))

    def observation(self) -> Observation:
        """What re-grading reads of this record (:class:`fcbench.grading.regrade.Observation`)."""
        return Observation(
            case_id=self.case_id,
            mode=self.mode,
            outcome=self.outcome.data(),
            anomalies=self.anomaly_data(),
            recorded=self.verdict_data(),
            seq=self.seq,
            target=self.label,
            repeat=self.repeat,
        )

    def record(self) -> Record:
        """The whole record as the typed :class:`~fcbench.store.records.Record` (pydantic's
        ValidationError when the record is not of that shape)."""
        data = {name: getattr(self, name) for name in _SCALARS + _KEPT}
        data |= {name: decoded(getattr(self, name)) for name in _TEXTS}
        data["target"] = self.target.as_dict()
        data["outcome"] = self.outcome.data()
        if self.usage is not None:
            data["usage"] = msgspec.structs.asdict(self.usage)
        return Record.model_validate({key: value for key, value in data.items() if value is not None})

    def restored(self) -> RecordView:
        """This view with the values its line left out put back (:mod:`fcbench.store.elide`): the
        raw argument texts rebuilt from the arguments and the mismatches' actual values (raw texts
        kept in the blobs stay listed in :attr:`elided`)."""
        if self.elided is NULL:  # the decoder's default: the line left nothing out
            return self
        elided = decoded(self.elided)
        if not isinstance(elided, list) or not elided:
            return self
        parts: dict[str, Any] = {"outcome": self.outcome.data(), "verdict": decoded(self.verdict)}
        if self.turns != NULL:
            parts["turns"] = decoded(self.turns)
        left = restore_elided(parts, elided)
        outcome = self.outcome
        calls = parts["outcome"].get("calls")
        if isinstance(calls, list) and isinstance(outcome.calls, list):
            views = [CallView(*(_text(c.get(f)) for f in CallView.__struct_fields__)) for c in calls]
            outcome = msgspec.structs.replace(outcome, calls=views)
        return msgspec.structs.replace(
            self,
            outcome=outcome,
            verdict=_text(parts["verdict"]),
            turns=_text(parts["turns"]) if "turns" in parts else self.turns,
            elided=_text(left) if left else NULL,
        )

    def with_verdict(self, text: bytes) -> RecordView:
        """This view with another verdict (a re-graded one), given as its JSON text."""
        return msgspec.structs.replace(self, verdict=msgspec.Raw(text))


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


DECODER = msgspec.json.Decoder(RecordView)
"""Reads one ``records.jsonl`` line into a :class:`RecordView`."""

_encode = msgspec.json.Encoder().encode


def encode_calls(calls: list[CallView]) -> bytes:
    """The calls of a ``tool_calls`` outcome as JSON text without their ids: equal calls, equal text."""
    return _encode([msgspec.structs.replace(call, id=NULL) for call in calls])


def _text(value: Any) -> msgspec.Raw:
    return msgspec.Raw(json.dumps(value, separators=(",", ":")).encode())


def view_of(rec: dict[str, Any]) -> RecordView:
    """The view of a record dict that :func:`fcbench.store.records.is_record` accepted.

    Raises where the dict pass raised on every record (a usage that is not an object); the calls
    of a ``tool_calls`` outcome that are not a list of objects become a value that raises when
    the observation is scored, as the dict pass did then.
    """
    outcome = rec["outcome"]
    kind = outcome.get("kind")
    calls: Any = None
    if kind == "tool_calls":
        found = outcome.get("calls") or []
        if isinstance(found, list) and all(isinstance(c, dict) for c in found):
            calls = [CallView(*(_text(c.get(f)) for f in CallView.__struct_fields__)) for c in found]
        else:
            calls = _Unscorable(f"calls of a tool_calls outcome are not a list of objects: {found!r:.80}")
    usage = rec.get("usage") or {}
    return RecordView(
        target=TargetView(**{k: v for k, v in rec["target"].items() if k in _TARGET_FIELDS}),
        case_id=rec["case_id"],
        repeat=rec["repeat"],
        mode=rec["mode"],
        outcome=OutcomeView(
            **{k: outcome[k] for k in ("kind", "code", "message", "status", "text") if k in outcome},
            calls=calls,
        ),
        usage=UsageView(*(_tokens(usage.get(name)) for name in UsageView.__struct_fields__)),
        **_parts(rec),
    ).restored()


def _parts(rec: dict[str, Any]) -> dict[str, Any]:
    """The scalar fields of a view as they are, the others as their JSON text."""
    kept = {k: rec.get(k) for k in _SCALARS + _KEPT[3:]}
    return kept | {k: _text(rec.get(k)) for k in _TEXTS}


_SCALARS = ("latency_ms", "cost_usd", "error", "run_id", "seq", "attempts")
"""The fields of a view decoded as they are."""
_KEPT = ("case_id", "repeat", "mode", "started_at", "dataset_version", "continuation")
"""The identity and the other fields of a view decoded as they are, but :func:`view_of` keeps."""
_TEXTS = (
    "case",
    "anomalies",
    "verdict",
    "turns",
    "raw",
    "schema_changes",
    "notes",
    "judge",
    "elided",
    "tool_order",
)
"""The fields of a view kept as JSON text."""


_TARGET_FIELDS = frozenset(TargetView.__struct_fields__)


def _tokens(value: Any) -> Any:
    return value if value is None or isinstance(value, int) else UNCOUNTED


class _Unscorable:
    """Calls that cannot be scored: encoding them (:data:`encode_calls`) raises TypeError when the
    observation is scored, where the record pass failed on them."""

    def __init__(self, why: str) -> None:
        self.why = why


def complete_lines(path: Path, torn: DamagedLines | None = None) -> Iterator[tuple[list[bytes], bool]]:
    """The complete lines of ``path`` (without their newlines), a block at a time, each block with
    whether it is all ASCII (else check each line with :func:`readable_line`).

    A torn last line (a killed writer) ends the file, as in
    :func:`fcbench.store.records.iter_record_dicts`, and is counted in ``torn`` when given (once:
    a resume drops it before it appends, :func:`fcbench.store.records.truncate_torn_tail`).
    """
    try:
        fh = open_run_file(path)
    except FileNotFoundError:
        return
    with fh:
        rest = b""
        while block := fh.read(BLOCK_BYTES):
            ascii = block.isascii() and rest.isascii()
            lines = block.split(b"\n")
            lines[0] = rest + lines[0]
            rest = lines.pop()
            yield lines, ascii
        if rest and torn is not None:
            torn.count += 1


def readable_line(line: bytes) -> bool:
    """Whether :data:`DECODER` may read a line: UTF-8 (a line that is not is left to :func:`json.loads`,
    which decides; it takes encoded surrogates, the decoder does not)."""
    try:
        line.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def read_view(line: bytes, readable: bool = True) -> RecordView | None:
    """The view of one line of ``records.jsonl``; None when the line is no record (not JSON, or
    JSON that :func:`fcbench.store.records.is_record` refuses). ``readable``: the line is known to
    be UTF-8 (else it is checked)."""
    if readable or readable_line(line):
        try:
            return DECODER.decode(line).restored()
        except DECODE_ERRORS:
            pass
    try:
        rec = json.loads(line)
    except (ValueError, RecursionError):
        return None
    if not is_record(rec):
        return None
    try:
        return view_of(rec)
    except (AttributeError, TypeError, ValueError):
        return None


def iter_views(path: Path, damaged: DamagedLines | None = None) -> Iterator[RecordView]:
    """The view of every record of a ``records.jsonl`` file, in file order (lines that are no
    records are skipped; a torn last line ends the file), each skipped line and a torn last line
    counted in ``damaged`` when given."""
    for lines, readable in complete_lines(path, damaged):
        for line in lines:
            view = read_view(line, readable)
            if view is not None:
                yield view
            elif damaged is not None:
                damaged.count += 1


def run_views(run_dir: Path, damaged: DamagedLines | None = None) -> Iterator[RecordView]:
    """The record views of a run directory (:func:`iter_views`), checked first: :class:`RunStateError`
    when ``run_dir`` is not a run directory (no valid manifest) or holds no records file."""
    read_manifest(run_dir)
    path = run_dir / RECORDS_FILE
    if not path.is_file():
        raise RunStateError(f"{run_dir}: no {RECORDS_FILE}")
    return iter_views(path, damaged)


def regrade_view(grader: Regrader, view: RecordView, profile: str) -> RecordView:
    """The view with its verdict replaced by ``profile``'s (multi-turn modes keep theirs; a case
    the suite lacks raises :class:`~fcbench.errors.CaseError`)."""
    found = grader.verdict(view.observation(), profile)
    return view if found is None else view.with_verdict(found.model_dump_json().encode())


def regraded(views: Iterable[RecordView], suite: Suite, profile: str) -> Iterator[RecordView]:
    """:func:`regrade_view` of each view (an unknown profile raises
    :class:`~fcbench.errors.ConfigError` at once)."""
    grader = regrader(suite, profile)
    return (regrade_view(grader, view, profile) for view in views)
