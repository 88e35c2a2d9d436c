"""A server that cannot parse the model's own output gives a code of its own: ``model_output_invalid``.

The 500 below is llama.cpp's server's answer, recorded on this project's machine, when the model did
not write the call format its chat template asked for (a template asking for bare JSON): same status,
headers and body over ``/v1/chat/completions`` and ``/v1/messages``. It is served over real HTTP on
127.0.0.1 to a real ``fcbench run`` over each of the three dialects that server speaks; it must be
coverage loss (``not_scored``), never a model verdict and never an infrastructure code, and the run's
summary and the markdown report count it apart, per target. Server errors that say nothing about
the model's output, and 4xx "failed to parse" answers about the request, keep their codes.
"""

from __future__ import annotations

import http.server
import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from robust_run import records

from fcbench import adapters
from fcbench.contract import MODEL_CAUSED_ERRORS
from fcbench.report.common import md_escape

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


@pytest.fixture(scope="module")
def run(server_url: str, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """``fcbench run`` (a real subprocess) of one case over each dialect, against the recorded 500:
    the run folder and the run's terminal summary."""
    tmp = tmp_path_factory.mktemp("model-errors")
    config = tmp / "config.json"
    config.write_text(json.dumps({
        "endpoints": {
            f"recorded-{dialect}": {"dialect": dialect, "base_url": server_url + BASE_PATHS[dialect],
                                    "key_required": False, "local": True}
            for dialect in LOCAL_DIALECTS
        },
        "targets": [f"recorded-{dialect}:qwen" for dialect in LOCAL_DIALECTS],
        "modes": ["selection"], "repeats": 1,
    }))  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-m", "fcbench", "run", "--config", str(config), "--case", "types-01",
         "--out", str(tmp), "--min-coverage", "0", "--no-progress"],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 1 and "nothing was scored" in done.stdout, done.stdout + done.stderr  # the gate
    [run_dir] = [p for p in tmp.iterdir() if p.is_dir()]
    return run_dir, " ".join(done.stdout.split())


def test_the_recorded_llamacpp_500_is_model_output_invalid_in_every_dialect(run: tuple[Path, str]) -> None:
    run_dir, _ = run
    rows = records(run_dir)
    assert sorted(r["target"]["dialect"] for r in rows) == sorted(LOCAL_DIALECTS)
    assert Recorded500.requests == len(LOCAL_DIALECTS), (
        "one request each: a model-caused error is not retried"
    )
    for row in rows:
        outcome = row["outcome"]
        assert outcome["kind"] == "provider_error" and outcome["code"] == "model_output_invalid", outcome
        assert (
            outcome["status"] == 500 and "does not match the expected peg-native format" in outcome["message"]
        )
        assert row["verdict"]["decision"] == "not_scored"
    assert "model_output_invalid" in MODEL_CAUSED_ERRORS


def test_the_summary_and_the_report_count_it_apart_per_target(run: tuple[Path, str]) -> None:
    run_dir, summary = run
    report = subprocess.run(
        [sys.executable, "-m", "fcbench", "report", str(run_dir)], capture_output=True, text=True, check=True
    ).stdout
    notes = report.split("## Notes on the targets", 1)[1]
    for dialect in LOCAL_DIALECTS:
        line = f"model-caused provider errors recorded-{dialect}:qwen [selection]: model_output_invalid x1"
        assert line in summary, summary
        assert md_escape(line) in notes
    assert notes.count("0 other provider errors") == len(LOCAL_DIALECTS)


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
