"""How failed attempts are retried, and what one response may cost (:class:`Limits`)."""

from __future__ import annotations

from dataclasses import dataclass

RETRYABLE_CODES = frozenset({"rate_limited", "server", "overloaded", "timeout", "bad_response"})


@dataclass
class RetryPolicy:
    """How failed attempts are retried."""

    max_retries: int = 3
    """Retries per request (attempts = 1 + retries at most)."""
    backoff_s: float = 0.25
    """First backoff; doubles per retry unless the provider's hint says otherwise."""
    max_wait_s: float = 20.0
    """Longest single wait, whatever the provider asks."""
    budget: int = 1000
    """Retries allowed for the whole run; once spent, failures are recorded without retrying."""


@dataclass(frozen=True)
class Limits:
    """What one response may cost, whatever the provider sends."""

    max_response_bytes: int = 16 * 1024 * 1024
    """Largest decoded body (or sum of stream event data); beyond it the response is ``too_large``."""
    max_stream_events: int = 100_000
    """Most events one stream may send; beyond it the response is ``too_large``."""
    raw_keep_bytes: int = 64 * 1024
    """Of a cut response, how much of the body is kept in the raw capture."""
    observation_factor: float = 3.0
    """An observation's retries stop once it has run ``observation_factor x timeout_s``."""


class RetryBudget:
    """A run-wide pool of retries shared by every request."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.spent = 0

    def take(self) -> bool:
        """Spend one retry if any is left."""
        if self.spent >= self.total:
            return False
        self.spent += 1
        return True
