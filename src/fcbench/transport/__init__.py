"""The transport: the only place that talks to providers.

One pooled ``aiohttp.ClientSession`` per endpoint, a per-endpoint concurrency limit, a timeout,
retries with backoff that honour the provider's retry hint and are capped by a run-wide retry
budget, and raw capture of every exchange with secrets redacted. Failures become canonical
``provider_error`` outcomes (coverage loss), never exceptions.

One fault taxonomy for every dialect, streamed or not: the transport classifies what fails on the
connection, each adapter what its provider says (its ``errors`` module for error bodies and
in-stream error events, its ``stream`` module for a corrupted stream); the same fault gets the same
code in all of them. ``tests/adapters/test_fault_taxonomy.py`` injects every fault of the mock
(:mod:`fcbench.mock.faults`) into every dialect over HTTP and checks this table:

===================  ==================================================================  ================
mock fault           what reaches the client                                             code
===================  ==================================================================  ================
``rate_limit``       429 (with the dialect's retry hint)                                 ``rate_limited``
``server_error``     500                                                                 ``server``
``overload``         503, Anthropic 529, or a 5xx whose message says "overloaded"        ``overloaded``
``auth_error``       the dialect's bad-key answer (401, Gemini 400 ``API_KEY_INVALID``)  ``auth``
``timeout``          no answer within the client timeout, or a 504                       ``timeout``
``stream_cut``       the connection lost after the status line (body or stream cut)      ``bad_response``
``malformed_json``   a 2xx body, or one stream event, that is not a JSON object          ``bad_response``
``stream_error``     an error event in the stream (the mock sends an overload)           the event's code
``slow_first_byte``  a late but complete answer (within the timeout)                     none: scored
``split_args``       arguments streamed in 1-3 character fragments                       none: scored
``huge_body``        a 2xx body larger than ``max_response_bytes`` (not streamed)        ``too_large``
``gzip_bomb``        a small gzip body inflating past ``max_response_bytes``             ``too_large``
--                   connection refused or closed before any response                    ``server``
===================  ==================================================================  ================

None of these is ever a model outcome: a corrupted or cut wire is the provider's or the network's
fault, so it is coverage loss (``not_scored``), never unparseable arguments or a text answer.

Streams come in two framings, chosen by the adapter's ``Capabilities.stream_framing``
(:data:`STREAM_FRAMINGS`): server-sent events, and AWS event-stream binary frames (Bedrock). Each
framing only turns the body into ``(event name, data)`` pairs; limits, raw capture (``events``),
stalls and cuts are handled once for both. A frame that fails its checksum or that the stream ends
inside of is ``bad_response``, like a cut connection.

Limits (:class:`Limits`) hold against a hostile or broken provider: ``timeout_s`` bounds every
read and the whole request (a server that drips one byte at a time or streams forever is cut at
the deadline: ``timeout``, ``raw.deadline = "request"``), a deadline per observation bounds its
retries (``raw.deadline = "observation"``), and a response larger than ``max_response_bytes``
once decoded (a gzip bomb is decoded chunk by chunk, so it never fills memory) or a stream of
more than ``max_stream_events`` events is cut and recorded as ``too_large``, keeping only the
first ``raw_keep_bytes`` of what came (``raw.truncated`` says so).
"""

from fcbench.transport.capture import clean_turn, valid_unicode
from fcbench.transport.client import Exchange, Transport, env_proxy
from fcbench.transport.policy import RETRYABLE_CODES, Limits, RetryBudget, RetryPolicy
from fcbench.transport.streams import STREAM_FRAMINGS, StreamFraming

__all__ = [
    "RETRYABLE_CODES",
    "STREAM_FRAMINGS",
    "Exchange",
    "Limits",
    "RetryBudget",
    "RetryPolicy",
    "StreamFraming",
    "Transport",
    "clean_turn",
    "env_proxy",
    "valid_unicode",
]
