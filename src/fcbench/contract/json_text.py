"""JSON text as ``json`` writes and reads it, made by msgspec wherever that gives the same bytes.

``json.dumps(value, ensure_ascii=False, separators=(",", ":"))`` is what request bodies, raw
captures and blobs are written as; msgspec writes the same text several times faster for every
JSON value but some floats, which these functions detect and hand to ``json``.
"""

from __future__ import annotations

import json
import struct
from typing import Any

import msgspec

COMPACT_JSON = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
"""What ``json.dumps(value, ensure_ascii=False, separators=(",", ":"))`` uses, made once: ``dumps``
builds a new encoder on every call when given options, a cost paid per stream event."""

_MSGSPEC_JSON = msgspec.json.Encoder()
_MSGPACK = msgspec.msgpack.Encoder()
_DOUBLE = struct.Struct(">d")
_FLOAT64 = 0xCB
"""The msgpack marker of a float64; msgspec writes every float as one, followed by its 8 bytes."""


def compact_json(value: Any) -> bytes:
    """``COMPACT_JSON.encode(value)`` in UTF-8, byte for byte, made by msgspec when that is exact.

    msgspec writes what json writes for every JSON value except some floats: json writes ``1e-05``,
    ``1e+16``, ``NaN`` and ``Infinity`` where msgspec writes ``0.00001``, ``1e16`` and ``null``
    (the two agree on every float from 1e-4 to 1e16 and on zero). The floats of ``value`` are read
    from its msgpack form, which is cheap to make; a value holding another float, or one msgspec
    cannot encode, is encoded by json.
    """
    try:
        packed = _MSGPACK.encode(value)
        text = _MSGSPEC_JSON.encode(value)
    except (TypeError, ValueError, OverflowError):  # a key or an integer msgpack has no form for
        return COMPACT_JSON.encode(value).encode()
    if _FLOAT64 in packed and not _floats_alike(packed, text):
        return COMPACT_JSON.encode(value).encode()
    return text


_MSGSPEC_DECODE = msgspec.json.Decoder()


def parse_json(raw: bytes) -> Any:
    """``json.loads(raw)``, the same value, parsed by msgspec when it can.

    Where the two differ, msgspec refuses (``NaN``, ``Infinity``, numbers too large for a float,
    lone surrogates, a byte-order mark, other encodings than UTF-8), and json parses the text or
    raises its own error, as it always did.
    """
    try:
        return _MSGSPEC_DECODE.decode(raw)
    except msgspec.MsgspecError:
        return json.loads(raw)


def _floats_alike(packed: bytes, text: bytes) -> bool:
    """Whether msgspec's ``text`` writes every float of a msgpack message as json would.

    A ``0xcb`` byte is also found inside integers and strings; what follows it is then not a float
    of the value, so a number read there that json would write otherwise counts only if msgspec's
    writing of it is in ``text``, as that of every float of the value is (a wrong guess can only
    send the value to json, never hide a float).
    """
    at = packed.find(_FLOAT64)
    while 0 <= at <= len(packed) - 9:  # a float's marker is followed by its 8 bytes
        (number,) = _DOUBLE.unpack_from(packed, at + 1)
        if number != 0.0 and not 1e-4 <= abs(number) < 1e16 and _MSGSPEC_JSON.encode(number) in text:
            return False
        at = packed.find(_FLOAT64, at + 1)
    return True
