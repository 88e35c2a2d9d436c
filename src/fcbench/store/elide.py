"""A large argument stored once per record, losslessly (record format 3).

A call's arguments appear in a record three times: parsed (``outcome.calls[i].arguments``), as the
model sent them (``raw_arguments``) and, when wrong, in the verdict (``verdict.wrong[j].actual``).
For a value of at least :data:`LARGE_VALUE_BYTES`, :func:`elide_large_values` keeps only the
parsed arguments in place and lists what it left out in the record's ``elided``
(:class:`~fcbench.store.records.Elided`, each at a JSON pointer, RFC 6901):

* ``arguments``: the raw text is byte-equal to the compact JSON of the stored arguments
  (:func:`compact_json`), so it is left out (null) and rebuilt from them;
* ``blob``: it is not, so the raw text moves to ``blobs.jsonl.gz`` (one gzip copy, beside the raw
  bodies) and is read back from there;
* ``copy``: a mismatch's ``actual`` equals (same JSON text) a value in the outcome's arguments; it
  becomes a bounded preview (:data:`PREVIEW_CHARS`) and is copied back from that pointer.

:func:`restore_elided` puts every value back exactly (the ``blob`` ones when the blobs are given),
so readers see the record as the model produced it; records without ``elided`` (format 2 and
earlier, or small values) are read as they are.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

LARGE_VALUE_BYTES = 4096
"""A raw argument text or a mismatch's actual value this long (JSON text) or longer is stored once."""

PREVIEW_CHARS = 240
"""Characters of a left-out ``actual`` kept in its place, for a person reading the line."""

PREVIEW_MARK = "…"
"""Ends a preview (the value continues at the elision's source)."""


def compact_json(value: Any) -> str:
    """The compact JSON text of ``value`` (no spaces, UTF-8 kept): how ``arguments`` elisions rebuild
    a raw argument text."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def pointer(*parts: str | int) -> str:
    """The JSON pointer of ``parts`` (``~`` and ``/`` escaped)."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def _steps(at: str) -> list[str]:
    if not at.startswith("/"):
        raise ValueError(f"not a JSON pointer: {at!r:.80}")
    return [p.replace("~1", "/").replace("~0", "~") for p in at[1:].split("/")]


def resolve(data: Any, at: str) -> Any:
    """The value at pointer ``at`` in ``data`` (KeyError, IndexError, TypeError or ValueError when
    there is none)."""
    for step in _steps(at):
        data = data[int(step)] if isinstance(data, list) else data[step]
    return data


def _put(data: Any, at: str, value: Any) -> None:
    *parents, last = _steps(at)
    for step in parents:
        data = data[int(step)] if isinstance(data, list) else data[step]
    if isinstance(data, list):
        data[int(last)] = value
    else:
        data[last] = value


def _calls(data: Mapping[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """(pointer, call) of every call of the record dict's outcome and turns."""
    outcomes = [("/outcome", data.get("outcome"))]
    turns = data.get("turns")
    if isinstance(turns, list):
        outcomes += [
            (pointer("turns", i, "outcome"), t.get("outcome"))
            for i, t in enumerate(turns)
            if isinstance(t, dict)
        ]
    for where, outcome in outcomes:
        calls = outcome.get("calls") if isinstance(outcome, dict) else None
        for i, call in enumerate(calls if isinstance(calls, list) else []):
            if isinstance(call, dict):
                yield f"{where}/calls/{i}", call


def _find(value: Any, text: str, where: str) -> str | None:
    """The pointer of the first node under ``value`` (at ``where``) whose JSON text is ``text``."""
    if isinstance(value, str) or value is None or isinstance(value, bool | int | float):
        return where if compact_json(value) == text else None
    if len(compact_json(value)) < len(text):
        return None
    if compact_json(value) == text:
        return where
    items = value.items() if isinstance(value, dict) else enumerate(value)
    for key, inner in items:
        found = _find(inner, text, where + pointer(key))
        if found is not None:
            return found
    return None


def _preview(value: Any, text: str) -> str:
    shown = value if isinstance(value, str) else text
    return shown[:PREVIEW_CHARS] + PREVIEW_MARK


def needs_eliding(raw_arguments: Iterable[str | None]) -> bool:
    """Whether a record whose calls have these raw argument texts may hold a large value (a
    mismatch's actual is a part of its arguments, whose raw text is as long, when there is one)."""
    return any(raw is None or len(raw) >= LARGE_VALUE_BYTES for raw in raw_arguments)


def elide_large_values(data: dict[str, Any], store_text: Any) -> list[dict[str, Any]]:
    """Leave the large values out of the record dict ``data`` (as written: JSON types only), in place;
    the elisions made (``elided`` entries). ``store_text(text) -> blob id`` stores a raw text that
    the arguments do not rebuild (it may raise UnicodeEncodeError: the text then stays)."""
    elided: list[dict[str, Any]] = []
    for where, call in _calls(data):
        raw = call.get("raw_arguments")
        if not isinstance(raw, str) or len(raw) < LARGE_VALUE_BYTES or call.get("parse_error") is not None:
            continue
        entry: dict[str, Any] = {"at": f"{where}/raw_arguments", "bytes": len(raw.encode("utf-8", "replace"))}
        if call.get("arguments") is not None and compact_json(call["arguments"]) == raw:
            entry |= {"how": "arguments", "source": f"{where}/arguments"}
        else:
            try:
                entry |= {"how": "blob", "source": store_text(raw)}
            except UnicodeEncodeError:
                continue
        call["raw_arguments"] = None
        elided.append(entry)
    verdict = data.get("verdict")
    wrong = verdict.get("wrong") if isinstance(verdict, dict) else None
    for j, mismatch in enumerate(wrong if isinstance(wrong, list) else []):
        if not isinstance(mismatch, dict) or "actual" not in mismatch:
            continue
        text = compact_json(mismatch["actual"])
        if len(text) < LARGE_VALUE_BYTES:
            continue
        source = next(
            (
                found
                for where, call in _calls(data)
                if (found := _find(call.get("arguments"), text, f"{where}/arguments"))
            ),
            None,
        )
        if source is None:
            continue
        elided.append(
            {
                "at": pointer("verdict", "wrong", j, "actual"),
                "how": "copy",
                "source": source,
                "bytes": len(text.encode()),
            }
        )
        mismatch["actual"] = _preview(mismatch["actual"], text)
    return elided


def restore_elided(
    data: dict[str, Any], elided: list[Any], blobs: Mapping[str, Any] | None = None
) -> list[Any]:
    """Put the values of ``elided`` back into the record dict ``data``, in place; the elisions left
    (``blob`` ones without ``blobs``, or any whose pointer finds nothing in a damaged record)."""
    left: list[Any] = []
    for entry in elided:
        try:
            how, source, at = entry["how"], entry["source"], entry["at"]
            if how == "arguments":
                value: Any = compact_json(resolve(data, source))
            elif how == "copy":
                value = json.loads(compact_json(resolve(data, source)))
            elif how == "blob" and blobs is not None and source in blobs:
                value = blobs[source]
            else:
                left.append(entry)
                continue
            _put(data, at, value)
        except (KeyError, IndexError, TypeError, ValueError):
            left.append(entry)
    return left
