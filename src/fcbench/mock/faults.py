"""Fault injection for the mock provider.

A fault is chosen per request, either deterministically by the request header
``X-Fcbench-Fault: NAME[=VALUE][,NAME[=VALUE]...]`` or by chance from a server-wide spec string
such as ``rate_limit:0.1,server_error:0.05,seed=7``. Chance is seeded by the spec's seed, the
request's digest and how many identical requests came before it, so a run against the mock is
reproducible while a retried request can still succeed.

=================  ==========================================================  =================
name               effect                                                      VALUE (optional)
=================  ==========================================================  =================
``rate_limit``     429 in the dialect's shape with its retry hint               retry-after, s
                   (``retry-after`` header; Gemini ``RetryInfo.retryDelay``)
``server_error``   500 in the dialect's shape                                   --
``overload``       529 ``overloaded_error`` (Anthropic), 503 (others)           --
``auth_error``     the dialect's bad-key answer (401, Gemini 400)               --
``slow_first_byte`` wait before the response starts                            delay, ms
``timeout``        hang (until the client gives up), then 504                   hang, s
``stream_cut``     drop the connection half way through the body or stream      --
``stream_error``   streams: an in-stream error event half way, then stop        --
``malformed_json`` the JSON body (or one stream event) is cut mid-value         --
``split_args``     streams: argument text in 1-3 character fragments           --
``huge_body``      not streamed: a 200 whose JSON body is VALUE MiB of padding  size, MiB (200)
``gzip_bomb``      not streamed: a 200 gzip body of ~1 MiB that inflates to     --
                   1 GiB (built once per server)
=================  ==========================================================  =================

The spec string also takes options: ``seed=N``, ``retry_after=S``, ``slow_ms=MS``,
``hang_s=S``.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Mapping
from dataclasses import dataclass, field

from fcbench.errors import ConfigError
from fcbench.mock.common import ErrorKind

FAULT_NAMES: tuple[str, ...] = (
    "rate_limit",
    "server_error",
    "overload",
    "auth_error",
    "slow_first_byte",
    "timeout",
    "stream_cut",
    "stream_error",
    "malformed_json",
    "split_args",
    "huge_body",
    "gzip_bomb",
)
"""Every fault the mock knows, in the order they are drawn from a spec."""

ERROR_FAULTS: Mapping[str, ErrorKind] = {
    "auth_error": "auth",
    "rate_limit": "rate_limit",
    "overload": "overloaded",
    "server_error": "server",
}
"""Faults answered with an error response, by precedence, and the error kind each produces."""

FAULT_HEADER = "x-fcbench-fault"
"""Request header selecting faults deterministically."""

_SPEC_OPTIONS = ("seed", "retry_after", "slow_ms", "hang_s")


@dataclass(frozen=True)
class FaultSpec:
    """Server-wide fault settings: chance per fault plus the defaults of fault parameters."""

    chances: tuple[tuple[str, float], ...] = ()
    """``(fault name, probability in [0, 1])`` pairs, drawn in this order."""
    seed: int = 0
    retry_after: int = 1
    """Seconds announced by ``rate_limit``."""
    slow_ms: int = 1500
    """Delay of ``slow_first_byte``."""
    hang_s: float = 60.0
    """How long ``timeout`` hangs at most before answering 504."""

    @classmethod
    def parse(cls, text: str | None) -> FaultSpec:
        """Parse ``name:prob,...,seed=N`` (empty or None gives no faults); raises ConfigError."""
        if not text or not text.strip():
            return cls()
        chances: list[tuple[str, float]] = []
        options: dict[str, float] = {}
        for raw in text.split(","):
            item = raw.strip()
            if not item:
                continue
            if "=" in item:
                key, _, value = item.partition("=")
                key = key.strip()
                if key not in _SPEC_OPTIONS:
                    raise ConfigError(
                        f"unknown fault option {key!r} (known: {', '.join(_SPEC_OPTIONS)})", key="faults"
                    )
                options[key] = _number(value, key)
                continue
            name, sep, value = item.partition(":")
            name = name.strip()
            if name not in FAULT_NAMES:
                raise ConfigError(f"unknown fault {name!r} (known: {', '.join(FAULT_NAMES)})", key="faults")
            prob = _number(value, name) if sep else 1.0
            if not 0.0 <= prob <= 1.0:
                raise ConfigError(
                    f"probability of {name!r} must be between 0 and 1, got {prob}", key="faults"
                )
            chances.append((name, prob))
        return cls(
            chances=tuple(chances),
            seed=int(options.get("seed", 0)),
            retry_after=int(options.get("retry_after", 1)),
            slow_ms=int(options.get("slow_ms", 1500)),
            hang_s=float(options.get("hang_s", 60.0)),
        )

    def draw(self, digest: str, occurrence: int) -> FaultPlan:
        """Pick this request's faults by chance, seeded by the seed, digest and occurrence."""
        if not self.chances:
            return FaultPlan()
        seed_text = f"{self.seed}:{digest}:{occurrence}"
        rng = random.Random(hashlib.sha256(seed_text.encode()).hexdigest())
        chosen = {name: None for name, prob in self.chances if rng.random() < prob}
        return FaultPlan(chosen)


def _number(text: str, what: str) -> float:
    try:
        return float(text.strip())
    except ValueError:
        raise ConfigError(f"{what}: expected a number, got {text.strip()!r}", key="faults") from None


@dataclass(frozen=True)
class FaultPlan:
    """The faults chosen for one request, each with its optional numeric parameter."""

    faults: Mapping[str, float | None] = field(default_factory=dict)

    def has(self, name: str) -> bool:
        """Whether fault ``name`` applies to this request."""
        return name in self.faults

    def value(self, name: str, default: float) -> float:
        """The parameter given with fault ``name``, or ``default``."""
        value = self.faults.get(name)
        return default if value is None else value

    def error_kind(self) -> tuple[str, ErrorKind] | None:
        """``(fault name, error kind)`` of the error fault to answer with, if any."""
        for name, kind in ERROR_FAULTS.items():
            if name in self.faults:
                return name, kind
        return None


def parse_fault_header(value: str) -> FaultPlan:
    """Parse ``NAME[=VALUE][,...]``; raises ValueError naming the bad entry."""
    chosen: dict[str, float | None] = {}
    for raw in value.split(","):
        item = raw.strip()
        if not item:
            continue
        name, sep, param = item.partition("=")
        name = name.strip()
        if name not in FAULT_NAMES:
            raise ValueError(f"unknown fault {name!r} in X-Fcbench-Fault (known: {', '.join(FAULT_NAMES)})")
        if sep:
            try:
                chosen[name] = float(param)
            except ValueError:
                raise ValueError(f"X-Fcbench-Fault: {name}={param!r} is not a number") from None
        else:
            chosen[name] = None
    return FaultPlan(chosen)
