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
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec

NULL = msgspec.Raw(b"null")
"""The JSON text of an absent field (the dict pass read an absent field as None)."""
EMPTY_LIST = msgspec.Raw(b"[]")
"""The anomalies of almost every record."""

DECODE_ERRORS = (msgspec.DecodeError, RecursionError, ValueError)
"""What :data:`DECODER` raises on a line it does not read (ValidationError is a DecodeError)."""

BLOCK_BYTES = 1 << 22
"""How much of ``records.jsonl`` is read at a time."""


class CallView(msgspec.Struct, gc=False):
    """One call of a ``tool_calls`` outcome, its fields as JSON text (the call id left out)."""

    name: msgspec.Raw = NULL
    arguments: msgspec.Raw = NULL
    raw_arguments: msgspec.Raw = NULL
    parse_error: msgspec.Raw = NULL


class OutcomeView(msgspec.Struct, gc=False):
    """The fields of an outcome the metrics read."""

    kind: Any = None
    code: Any = None
    message: Any = None
    calls: list[CallView] | None = None


class UsageView(msgspec.Struct, gc=False):
    """Token counts as recorded: integers or None (:func:`view_of` stands in :data:`UNCOUNTED` for any
    other value, which counts no tokens)."""

    input_tokens: int | None = None
    output_tokens: int | None = None


UNCOUNTED = "uncounted"
"""A recorded token count that is neither an integer nor null."""


class TargetView(msgspec.Struct, gc=False):
    """The fields of a record's target that name its group (unset when absent, which is not null)."""

    endpoint: str | None | msgspec.UnsetType = msgspec.UNSET
    model: str | None | msgspec.UnsetType = msgspec.UNSET
    dialect: str | None | msgspec.UnsetType = msgspec.UNSET

    def as_dict(self) -> dict[str, Any]:
        """The target as the record dict held it (its other fields are never read)."""
        found = {"endpoint": self.endpoint, "model": self.model, "dialect": self.dialect}
        return {key: value for key, value in found.items() if value is not msgspec.UNSET}


class RecordView(msgspec.Struct, gc=False):
    """The fields of a record the metrics read; the identity fields typed as :func:`is_record` wants."""

    target: TargetView
    case_id: str
    repeat: int
    mode: str
    outcome: OutcomeView
    case: msgspec.Raw = NULL
    anomalies: msgspec.Raw = NULL
    verdict: msgspec.Raw = NULL
    latency_ms: Any = None
    usage: UsageView | None = None
    cost_usd: Any = None
    error: Any = None


DECODER = msgspec.json.Decoder(RecordView)
"""Reads one ``records.jsonl`` line into a :class:`RecordView`."""

encode_calls = msgspec.json.Encoder().encode
"""The calls (:class:`CallView` list) of a ``tool_calls`` outcome as JSON text without their ids:
equal calls, equal text."""


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
            calls = [
                CallView(*(_text(c.get(f)) for f in ("name", "arguments", "raw_arguments", "parse_error")))
                for c in found
            ]
        else:
            calls = _Unscorable(f"calls of a tool_calls outcome are not a list of objects: {found!r:.80}")
    usage = rec.get("usage") or {}
    return RecordView(
        target=TargetView(**{k: v for k, v in rec["target"].items() if k in _TARGET_FIELDS}),
        case_id=rec["case_id"],
        repeat=rec["repeat"],
        mode=rec["mode"],
        outcome=OutcomeView(kind=kind, code=outcome.get("code"), message=outcome.get("message"), calls=calls),
        case=_text(rec.get("case")),
        anomalies=_text(rec.get("anomalies")),
        verdict=NULL,  # the dict pass hands its verdict over already decoded
        latency_ms=rec.get("latency_ms"),
        usage=UsageView(_tokens(usage.get("input_tokens")), _tokens(usage.get("output_tokens"))),
        cost_usd=rec.get("cost_usd"),
        error=rec.get("error"),
    )


_TARGET_FIELDS = frozenset(TargetView.__struct_fields__)


def _tokens(value: Any) -> Any:
    return value if value is None or isinstance(value, int) else UNCOUNTED


class _Unscorable:
    """Calls that cannot be scored: encoding them (:data:`encode_calls`) raises TypeError when the
    observation is scored, where the record pass failed on them."""

    def __init__(self, why: str) -> None:
        self.why = why


def complete_lines(path: Path) -> Iterator[tuple[list[bytes], bool]]:
    """The complete lines of ``path`` (without their newlines), a block at a time, each block with
    whether it is all ASCII (else check each line with :func:`readable_line`).

    A torn last line (a killed writer) ends the file, as in
    :func:`fcbench.store.records.iter_record_dicts`.
    """
    if not path.exists():
        return
    with path.open("rb") as fh:
        rest = b""
        while block := fh.read(BLOCK_BYTES):
            ascii = block.isascii() and rest.isascii()
            lines = block.split(b"\n")
            lines[0] = rest + lines[0]
            rest = lines.pop()
            yield lines, ascii


def readable_line(line: bytes) -> bool:
    """Whether :data:`DECODER` may read a line: UTF-8 (a line that is not is left to :func:`json.loads`,
    which decides; it takes encoded surrogates, the decoder does not)."""
    try:
        line.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True
