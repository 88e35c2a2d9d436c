"""The opt-in response cache of ``fcbench run --cache DIR``: answers already paid for, reused.

While a user iterates on cases, most requests of a rerun are the ones the last run sent. With
``--cache DIR`` a model turn whose **redacted wire request** (path, query, body and extra headers,
as the transport would record them), **target** (endpoint, dialect, model) and **repeat index** (and the
turn of a conversation) are identical to one answered before is not sent: the answer kept in
``DIR`` is used, and the record says ``cached: true``. Only model answers are kept (never a
provider error: a rerun retries those). Reports count the cached observations and leave them out
of stability, latency and cost, which they would only repeat (:mod:`fcbench.metrics`).

Each answer is one file ``DIR/<sha256 of the key>.json`` holding the key it answers, the parsed
turn, the recorded latency and attempts and the redacted raw exchange; it is written through
:func:`fcbench.files.replaced_file` (whole or not at all). A cache folder is data from outside,
like a run directory: its files are opened without following links and must be regular files
(:func:`fcbench.files.read_run_bytes`); a link, or a file that is not a cached answer for exactly
this key (damaged, edited, another version), is not used: the request is sent and the file
replaced (a link itself, never what it points to).

The cache is off by default. A run made with it pins that in its manifest (``cache: true``), and a
resume must agree: resuming a run made without ``--cache`` with it (or the reverse) is refused.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from fcbench.adapters.base import BuiltRequest, ParsedTurn
from fcbench.contract import ProviderErrorOutcome, canonical_json
from fcbench.errors import InputError, RunStateError
from fcbench.files import check_user_path, read_run_bytes, replaced_file
from fcbench.redact import Redactor
from fcbench.run.plan import Planned
from fcbench.suite.imports import json_sha256
from fcbench.transport import Exchange

CACHE_FORMAT = "fcbench-response-cache/1"
"""The ``format`` of every cached answer file."""


@dataclass(frozen=True)
class CacheKey:
    """What makes two requests the same for the cache."""

    key: dict[str, Any]
    """The redacted request, the target and the repeat index (and turn), as JSON."""
    digest: str
    """SHA-256 of the key's canonical JSON: the file name."""


class ResponseCache:
    """A folder of cached model answers (see the module docstring)."""

    def __init__(self, folder: Path, redactor: Redactor) -> None:
        check_user_path(folder)
        if folder.exists() and not folder.is_dir():
            raise InputError("the response cache must be a folder", path=str(folder))
        folder.mkdir(parents=True, exist_ok=True)
        self.folder = folder
        """Where the answers are kept."""
        self.redactor = redactor
        """Takes secrets out of the request before it becomes a key (the run's transport redactor)."""

    def key(self, planned: Planned, built: BuiltRequest, headers: Mapping[str, str], turn: int) -> CacheKey:
        """The cache key of one model turn of ``planned``, built as ``built`` and sent with the
        target's own and the request's extra ``headers`` (the credentials are not among them)."""
        request = {
            "path": built.path,
            "query": built.query,
            "body": built.body,
            "stream": built.stream,
            "headers": {name.lower(): value for name, value in sorted(headers.items())},
        }
        key = {
            "request": self.redactor.raw(request),
            "target": planned.target.ref.model_dump(mode="json"),
            "repeat": planned.repeat,
            "turn": turn,
        }
        return CacheKey(key, json_sha256(key))

    def _path(self, key: CacheKey) -> Path:
        return self.folder / f"{key.digest}.json"

    def get(self, key: CacheKey) -> Exchange | None:
        """The cached answer of ``key``, or None (missing, or not an answer for this exact key)."""
        try:
            data = json.loads(read_run_bytes(self._path(key)))
        except (FileNotFoundError, RunStateError):  # a link or a non-regular file is never followed
            return None
        except (ValueError, RecursionError):
            return None
        if not isinstance(data, dict) or data.get("format") != CACHE_FORMAT:
            return None
        if canonical_json(data.get("key")) != canonical_json(key.key):
            return None
        try:
            turn = ParsedTurn.model_validate(data["turn"])
            latency, attempts, raw = float(data["latency_ms"]), int(data["attempts"]), dict(data["raw"])
        except (KeyError, TypeError, ValueError, ValidationError):
            return None
        return Exchange(turn=turn, latency_ms=latency, attempts=attempts, raw=raw)

    def put(self, key: CacheKey, exchange: Exchange) -> bool:
        """Keep ``exchange`` as the answer of ``key`` (a provider error is not kept); True when kept."""
        if isinstance(exchange.turn.outcome, ProviderErrorOutcome):
            return False
        data = {
            "format": CACHE_FORMAT,
            "key": key.key,
            "turn": exchange.turn.model_dump(mode="json"),
            "latency_ms": exchange.latency_ms,
            "attempts": exchange.attempts,
            "raw": self.redactor.raw(exchange.raw),
        }
        with replaced_file(self._path(key)) as handle:
            handle.write(json.dumps(data, ensure_ascii=False, default=str).encode("utf-8"))
        return True


def check_resume_cache(run_dir: Path, pinned: bool, given: bool) -> None:
    """Refuse to resume a run made without the cache with it, or the reverse."""
    if pinned == given:
        return
    made, now = ("with", "without") if pinned else ("without", "with")
    raise RunStateError(
        f"{run_dir}: cannot resume: the run was made {made} --cache and this resume is {now} it; "
        f"resume it {made} --cache, or start a new run"
    )


__all__ = ["CACHE_FORMAT", "CacheKey", "ResponseCache", "check_resume_cache"]
