"""A server that cannot parse the model's own output gives a code of its own: ``model_output_invalid``.

The 500 below is llama.cpp's server's answer, recorded on this project's machine, when the model did
not write the call format its chat template asked for (a template asking for bare JSON): same status,
headers and body over ``/v1/chat/completions`` and ``/v1/messages``. It is served over real HTTP on
127.0.0.1 and observed through the runner's path (adapter, transport, grader) in each of the three
dialects that server speaks; it must be coverage loss (``not_scored``), never a model verdict, and
never an infrastructure code. Server errors that say nothing about the model's output, and 4xx
"failed to parse" answers about the request, keep their codes.
"""

from __future__ import annotations

import asyncio
import http.server
import json
import threading
from collections.abc import Iterator

import pytest

from fcbench import adapters
from fcbench.contract import MODEL_CAUSED_ERRORS, ProviderErrorOutcome
from fcbench.endpoints import Endpoint
from fcbench.pricing import PriceTable
from fcbench.run.observe import ObservationContext, observe_single_turn
from fcbench.run.plan import Planned, Target
from fcbench.schema.validate import ValidatorCache
from fcbench.store.records import Record
from fcbench.suite.loader import load_suite
from fcbench.transport import RetryPolicy, Transport

LLAMACPP_500_BODY = (
    b'{"error":{"code":500,"message":"The model produced output that does not match the expected '
    b'peg-native format","type":"server_error"}}'
)
"""The body exactly as llama.cpp's server sent it (133 bytes)."""
LLAMACPP_500_HEADERS = {
    "server": "llama.cpp",
    "access-control-allow-origin": "",
    "content-type": "application/json; charset=utf-8",
}
LOCAL_DIALECTS = ("openai-chat", "openai-responses", "anthropic-messages")
"""The dialects of the managed llama.cpp server (``local``, ``local-responses``, ``local-anthropic``)."""
BASE_PATHS = {"openai-chat": "/v1", "openai-responses": "/v1", "anthropic-messages": ""}


class Recorded500(http.server.BaseHTTPRequestHandler):
    """Answers every POST with the recorded 500, and counts the requests."""

    requests = 0

    def do_POST(self) -> None:  # noqa: N802 (the stdlib's name)
        self.rfile.read(int(self.headers.get("content-length", "0")))
        type(self).requests += 1
        self.send_response(500)
        for name, value in LLAMACPP_500_HEADERS.items():
            self.send_header(name, value)
        self.send_header("content-length", str(len(LLAMACPP_500_BODY)))
        self.end_headers()
        self.wfile.write(LLAMACPP_500_BODY)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def server_url() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Recorded500)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def observe(url: str, dialect: str) -> Record:
    suite = load_suite("core")

    async def go() -> Record:
        transport = Transport(timeout_s=10.0, retry=RetryPolicy(max_retries=0))
        ctx = ObservationContext(
            run_id="model-errors",
            suite=suite,
            transport=transport,
            prices=PriceTable({}),
            validators=ValidatorCache(),
            api_keys={},
            temperature=0.0,
            max_tokens=64,
            seed=7,
            headers=lambda planned, turn: {},
        )
        endpoint = Endpoint(
            name=f"recorded-{dialect}",
            dialect=dialect,
            base_url=url + BASE_PATHS[dialect],
            key_required=False,
        )
        planned = Planned(
            seq=0, target=Target(endpoint, "qwen"), case=suite.case("types-01"), repeat=0, mode="selection"
        )
        try:
            return (await observe_single_turn(ctx, planned))()
        finally:
            await transport.aclose()

    return asyncio.run(go())


@pytest.mark.parametrize("dialect", LOCAL_DIALECTS)
def test_the_recorded_llamacpp_500_is_model_output_invalid_in_every_dialect(
    server_url: str, dialect: str
) -> None:
    before = Recorded500.requests
    record = observe(server_url, dialect)
    assert Recorded500.requests == before + 1
    assert isinstance(record.outcome, ProviderErrorOutcome)
    assert record.outcome.code == "model_output_invalid" and record.outcome.status == 500
    assert "does not match the expected peg-native format" in record.outcome.message
    assert record.verdict is not None and record.verdict.decision == "not_scored"
    assert "model_output_invalid" in MODEL_CAUSED_ERRORS


@pytest.mark.parametrize("dialect", [*LOCAL_DIALECTS, "gemini"])
@pytest.mark.parametrize(
    ("status", "message", "code"),
    [
        (500, "The model produced invalid content. Consider modifying your prompt.", "model_output_invalid"),
        (500, 'Failed to parse input at pos 12: {"name": "get_weather"', "model_output_invalid"),
        (500, "Internal server error", "server"),
        (400, "Failed to parse the request body as JSON", "bad_request"),
        (503, "The model produced invalid content", "overloaded"),
    ],
)
def test_only_server_errors_about_the_model_output_are_model_caused(
    dialect: str, status: int, message: str, code: str
) -> None:
    body = json.dumps({"error": {"code": status, "message": message, "type": "server_error"}})
    if dialect == "gemini":
        body = json.dumps({"error": {"code": status, "message": message}})
    outcome = adapters.get(dialect).parse_error(status, body.encode(), {})
    assert outcome.code == code, outcome
    assert outcome.status == status
