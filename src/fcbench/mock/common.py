"""Pieces every dialect of the mock shares: the error value, ids, token estimates, stream events.

Nothing here knows a wire format; each dialect module turns these neutral values into its own
JSON shapes.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import re
import string
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

from fcbench.contract.json_text import COMPACT_JSON, compact_json
from fcbench.contract.json_text import parse_json as parse_json  # the mock reads bodies with it
from fcbench.mock.sim.base import SimReply, SimRequest
from fcbench.mock.sim.schemas import schema_key

ErrorKind = Literal[
    "invalid_request",
    "auth",
    "not_found",
    "rate_limit",
    "server",
    "overloaded",
    "timeout",
]
"""Provider-neutral error classes; each dialect maps them to its status codes and body shapes."""

_ALNUM = string.ascii_letters + string.digits


def quoted(text: str) -> str:
    """``text`` as a JSON string, written as :data:`COMPACT_JSON` (and :func:`compact_json`) write it."""
    return COMPACT_JSON.encode(text)


def open_object(fields: dict[str, Any]) -> str:
    """The compact JSON of ``fields`` without its closing brace: the start of an object that more
    fields, each encoded on its own, are then written into (``,"key":value`` pieces, then ``}``)."""
    return compact_json(fields).decode()[:-1]


class MockError(Exception):
    """A request the mock refuses; rendered by the dialect that received it.

    The dialect chooses the status code and body from ``kind`` (for example ``overloaded`` is
    529 for Anthropic and 503 elsewhere); ``status`` overrides that choice when set.
    """

    def __init__(
        self,
        kind: ErrorKind,
        message: str,
        *,
        param: str | None = None,
        code: str | None = None,
        status: int | None = None,
        retry_after: int | None = None,
    ) -> None:
        super().__init__(message)
        self.kind: ErrorKind = kind
        self.message = message
        self.param = param
        self.code = code
        self.status = status
        self.retry_after = retry_after


@dataclass(frozen=True)
class SseEvent:
    """One server-sent event before framing: an optional ``event:`` name and its data."""

    event: str | None
    data: Any
    """A JSON-able value, or a ``str`` sent verbatim (used for ``[DONE]`` and broken JSON)."""

    def data_text(self) -> str:
        """The ``data:`` payload as text."""
        if isinstance(self.data, str):
            return self.data
        return compact_json(self.data).decode()

    def data_bytes(self) -> bytes:
        """The ``data:`` payload in UTF-8."""
        if isinstance(self.data, str):
            return self.data.encode()
        return compact_json(self.data)


HEX_DIGITS = "0123456789abcdef"
URL_SAFE = string.ascii_uppercase + string.ascii_lowercase + string.digits + "-_"
"""The 64 characters of URL-safe base64 (Gemini's response ids)."""


def _byte_table(alphabet: str) -> tuple[bytes, bytes]:
    """How :meth:`IdMaker.token` reads characters of ``alphabet`` (ASCII, under 256 characters) from
    the top byte of 32-bit draws: the byte -> character table, and the bytes no character has."""
    width = len(alphabet).bit_length()
    table, rejected = bytearray(256), bytearray()
    for byte in range(256):
        index = byte >> (8 - width)
        if index < len(alphabet):
            table[byte] = ord(alphabet[index])
        else:
            rejected.append(byte)
    return bytes(table), bytes(rejected)


_BYTE_TABLES = MappingProxyType(
    {alphabet: _byte_table(alphabet) for alphabet in (_ALNUM, HEX_DIGITS, URL_SAFE)}
)


class IdMaker:
    """Deterministic id generator, seeded from the request so replays get the same ids."""

    def __init__(self, seed: str) -> None:
        self._rng = random.Random(seed)

    def token(self, length: int, alphabet: str = _ALNUM) -> str:
        """A random string of ``length`` characters from ``alphabet``.

        Each character is the one ``random.Random.choice(alphabet)`` would draw: ``getrandbits``
        of the alphabet size's bit length (the top bits of one 32-bit word of the generator) until
        the number is below the size. For the alphabets ids use, the words are drawn together
        (``getrandbits(32 * n)`` holds n words, the first in its lowest bits) and the characters
        read from the top byte of each by one translation, dropping the bytes no character has.
        """
        tables = _BYTE_TABLES.get(alphabet)
        if tables is None:
            return self._token_by_draws(length, alphabet)
        table, rejected = tables
        out = b""
        while len(out) < length:
            need = length - len(out)
            words = self._rng.getrandbits(32 * need).to_bytes(4 * need, "little")
            out += words[3::4].translate(table, rejected)
        return out.decode("ascii")

    def _token_by_draws(self, length: int, alphabet: str) -> str:
        """:meth:`token` one draw at a time, for any alphabet."""
        size = len(alphabet)
        width = size.bit_length()
        draw = self._rng.getrandbits
        out = []
        for _ in range(length):
            index = draw(width)
            while index >= size:
                index = draw(width)
            out.append(alphabet[index])
        return "".join(out)

    def make(self, prefix: str, length: int) -> str:
        """``prefix`` followed by ``length`` random alphanumerics (for example ``call_`` + 24)."""
        return prefix + self.token(length)

    def padding(self) -> str:
        """A random-length filler string, like OpenAI's stream ``obfuscation`` field."""
        return self.token(self._rng.randint(1, 15))

    def hex(self, length: int) -> str:
        """``length`` random lowercase hexadecimal digits."""
        return self.token(length, HEX_DIGITS)


@dataclass(frozen=True)
class Decoded:
    """A wire request after its dialect decoded and accepted it."""

    model: str
    stream: bool
    request: SimRequest
    """What the simulated model will read (``occurrence`` is filled in by the app)."""
    echo: dict[str, Any] = field(default_factory=dict)
    """Dialect-specific request values a response repeats (tool choice, usage options, ...)."""


@dataclass(frozen=True)
class RenderContext:
    """Everything a dialect needs to encode one reply besides the reply itself."""

    ids: IdMaker
    created: int
    """Unix time of the response."""
    input_tokens: int
    output_tokens: int
    fine_arguments: bool = False
    """Split argument text into one-to-three character stream fragments (fault ``split_args``)."""

    def argument_fragments(self, text: str) -> list[str]:
        """Argument text cut the way a provider streams it (never empty: ``[""]`` for ``""``)."""
        if not text:
            return [""]
        sizes = [1, 2, 3] if self.fine_arguments else [4, 7, 5, 9, 6]
        out: list[str] = []
        pos = 0
        step = 0
        while pos < len(text):
            size = sizes[step % len(sizes)]
            out.append(text[pos : pos + size])
            pos += size
            step += 1
        return out


def estimate_tokens(text: str) -> int:
    """Rough token count: about one token per four characters, at least one for non-empty text."""
    return math.ceil(len(text) / 4) if text else 0


def schema_size(schema: dict[str, Any]) -> int:
    """Characters of ``json.dumps(schema)``: what a tool schema adds to a request's token estimate."""
    return len(json.dumps(schema))


class SchemaSizes:
    """:func:`schema_size` of each distinct tool schema, kept for the next request that repeats it
    (every request of a run repeats its tools): the ``limit`` schemas used last are kept."""

    def __init__(self, limit: int = 1024) -> None:
        self._sizes: OrderedDict[bytes | str, int] = OrderedDict()
        self._limit = limit

    def __call__(self, schema: dict[str, Any]) -> int:
        """The length, computed the first time the schema is seen (keyed by its exact JSON text)."""
        key = schema_key(schema)
        size = self._sizes.get(key)
        if size is not None:
            self._sizes.move_to_end(key)
            return size
        size = self._sizes[key] = schema_size(schema)
        if len(self._sizes) > self._limit:
            self._sizes.popitem(last=False)
        return size

    def __len__(self) -> int:
        """How many schemas are kept."""
        return len(self._sizes)


def request_tokens(request: SimRequest, sizes: Callable[[dict[str, Any]], int] = schema_size) -> int:
    """Estimated input tokens of a decoded request (system, turns and tool schemas), as
    :func:`estimate_tokens` of their text; ``sizes`` gives each tool schema's :func:`schema_size`."""
    length = len(request.system)
    for turn in request.turns:
        length += len(turn.text) + sum(len(call.name) + len(call.arguments_json) for call in turn.calls)
        if turn.result is not None:
            length += len(turn.result if isinstance(turn.result, str) else json.dumps(turn.result))
    for tool in request.tools:
        length += len(tool.name) + len(tool.description) + sizes(tool.parameters)
    return max(1, math.ceil(length / 4))


def reply_tokens(reply: SimReply) -> int:
    """Estimated output tokens of a reply."""
    text = reply.text + "".join(call.name + call.arguments_json for call in reply.calls)
    return max(1, estimate_tokens(text))


def text_pieces(text: str) -> list[str]:
    """Text cut into word-sized stream deltas (each keeps its leading whitespace)."""
    pieces = re.findall(r"\s*\S+", text)
    tail = text[len("".join(pieces)) :]
    if tail:
        pieces.append(tail)
    return pieces or [text]


def parse_arguments(arguments_json: str) -> tuple[bool, Any]:
    """Parse call argument text; returns ``(ok, value)`` and never raises."""
    try:
        return True, json.loads(arguments_json)
    except ValueError:
        return False, None


def decode_result(value: Any) -> Any:
    """A tool result as the model reads it: JSON text is decoded, anything else kept."""
    if isinstance(value, str):
        ok, parsed = parse_arguments(value)
        if ok and isinstance(parsed, dict | list):
            return parsed
    return value


def body_digest(path: str, body: bytes) -> str:
    """A stable digest of a request path and raw body (counts identical requests, seeds ids)."""
    return hashlib.sha256(path.encode() + b"\n" + body).hexdigest()
