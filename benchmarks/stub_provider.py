"""A minimal provider stub, and the process helpers the benchmarks share.

The stub answers the four dialects' model routes with one constant, valid tool call (a call of
``lookup_order``), streamed or not, after an optional fixed delay. Per request it does the least
an HTTP model server can do: read the body, parse it as JSON, check that a key was sent, and send
bytes prepared at startup. ``GET /stats`` says how many tool calls it has answered (and how many
requests it refused for want of a key). It is the baseline the mock is measured against
(``mock_throughput.py``) and the provider ``harness_overhead.py`` runs the harness against.

    python benchmarks/stub_provider.py --port 8766 --latency-ms 100

prints one ``DIALECT URL`` line per dialect, like ``fcbench mock serve``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import socket
import subprocess
import sys
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

BASE_PATHS = {"openai-chat": "/v1", "openai-responses": "/v1", "anthropic-messages": "", "gemini": "/v1beta"}
"""Dialect -> path to append to the server root to get that dialect's base URL."""

NAME, ARGS = "lookup_order", {"order_id": "ORD-104821"}
TEXT = json.dumps(ARGS)
USAGE = {"input_tokens": 10, "output_tokens": 5}

CHAT_CALL = {"id": "call_stub", "type": "function", "function": {"name": NAME, "arguments": TEXT}}
CHAT = {"id": "chatcmpl-stub", "model": "stub"}
RESPONSES_CALL = {"id": "fc_stub", "type": "function_call", "status": "completed", "call_id": "call_stub"}
RESPONSES_CALL |= {"name": NAME, "arguments": TEXT}
RESPONSE = {"id": "resp_stub", "object": "response", "status": "completed", "model": "stub"}
RESPONSE |= {"output": [RESPONSES_CALL], "usage": {**USAGE, "total_tokens": 15}}
TOOL_USE = {"type": "tool_use", "id": "toolu_stub", "name": NAME}
MESSAGE = {"id": "msg_stub", "type": "message", "role": "assistant", "model": "stub", "stop_sequence": None}
GEMINI_PART = {"functionCall": {"id": "fc_stub", "name": NAME, "args": ARGS}}
GEMINI = {"candidates": [{"content": {"role": "model", "parts": [GEMINI_PART]}, "finishReason": "STOP"}]}
GEMINI |= {"usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15}}


def _chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    return {**CHAT, "object": "chat.completion.chunk", "choices": [choice]}


REPLIES: dict[str, Any] = {
    "openai-chat": {
        **CHAT,
        "object": "chat.completion",
        "choices": [{"index": 0, "message": {"role": "assistant", "tool_calls": [CHAT_CALL]}}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    },
    "openai-responses": RESPONSE,
    "anthropic-messages": {**MESSAGE, "content": [{**TOOL_USE, "input": ARGS}], "stop_reason": "tool_use"},
    "gemini": GEMINI,
}
"""Dialect -> the non-streamed reply."""
REPLIES["openai-chat"]["choices"][0]["finish_reason"] = "tool_calls"
REPLIES["anthropic-messages"]["usage"] = USAGE

ARGUMENTS = {"output_index": 0, "item_id": "fc_stub"}
STREAMS: dict[str, list[tuple[str | None, Any]]] = {
    "openai-chat": [
        (
            None,
            _chunk(
                {"role": "assistant", "tool_calls": [{"index": 0, **CHAT_CALL, "function": {"name": NAME}}]}
            ),
        ),
        (None, _chunk({"tool_calls": [{"index": 0, "function": {"arguments": TEXT}}]})),
        (None, _chunk({}, "tool_calls")),
        (None, "[DONE]"),
    ],
    "openai-responses": [
        ("response.created", {"response": {**RESPONSE, "status": "in_progress", "output": []}}),
        ("response.output_item.added", {"output_index": 0, "item": {**RESPONSES_CALL, "arguments": ""}}),
        ("response.function_call_arguments.delta", {**ARGUMENTS, "delta": TEXT}),
        ("response.function_call_arguments.done", {**ARGUMENTS, "arguments": TEXT}),
        ("response.output_item.done", {"output_index": 0, "item": RESPONSES_CALL}),
        ("response.completed", {"response": RESPONSE}),
    ],
    "anthropic-messages": [
        ("message_start", {"message": {**MESSAGE, "content": [], "stop_reason": None, "usage": USAGE}}),
        ("content_block_start", {"index": 0, "content_block": {**TOOL_USE, "input": {}}}),
        ("content_block_delta", {"index": 0, "delta": {"type": "input_json_delta", "partial_json": TEXT}}),
        ("content_block_stop", {"index": 0}),
        ("message_delta", {"delta": {"stop_reason": "tool_use", "stop_sequence": None}, "usage": USAGE}),
        ("message_stop", {}),
    ],
    "gemini": [(None, GEMINI)],
}
"""Dialect -> the stream events, as ``(event name or None, data)``."""
KEY_HEADERS = ("authorization", "x-api-key", "x-goog-api-key")


def _frame(name: str | None, data: Any) -> bytes:
    """One SSE record; Responses and Anthropic name each event and repeat the name as its ``type``."""
    if name is not None:
        data = {"type": name, **data}
    text = data if isinstance(data, str) else json.dumps(data, separators=(",", ":"))
    return (f"event: {name}\n" if name else "").encode() + f"data: {text}\n\n".encode()


def create_stub_app(latency_ms: int = 0) -> Starlette:
    """The stub as an ASGI app: every model route answers with its dialect's constant tool call."""
    bodies = {d: json.dumps(body, separators=(",", ":")).encode() for d, body in REPLIES.items()}
    frames = {d: [_frame(name, data) for name, data in events] for d, events in STREAMS.items()}
    unauthorized = b'{"error":{"message":"no API key","type":"invalid_request_error"}}'
    served = {"tool_calls": 0, "unauthorized": 0}

    async def answer(request: Request, dialect: str, stream: bool | None = None) -> Response:
        if latency_ms > 0:
            await asyncio.sleep(latency_ms / 1000)
        body = json.loads(await request.body())
        if not any(k in request.headers for k in KEY_HEADERS) and "key" not in request.query_params:
            served["unauthorized"] += 1
            return Response(unauthorized, status_code=401, media_type="application/json")
        served["tool_calls"] += 1
        if stream if stream is not None else body.get("stream") is True:

            async def events() -> AsyncIterator[bytes]:
                for frame in frames[dialect]:
                    yield frame

            return StreamingResponse(events(), media_type="text/event-stream")
        return Response(bodies[dialect], media_type="application/json")

    async def chat(request: Request) -> Response:
        return await answer(request, "openai-chat")

    async def responses(request: Request) -> Response:
        return await answer(request, "openai-responses")

    async def messages(request: Request) -> Response:
        return await answer(request, "anthropic-messages")

    async def gemini(request: Request) -> Response:
        stream = request.path_params["target"].endswith(":streamGenerateContent")
        return await answer(request, "gemini", stream)

    return Starlette(
        routes=[
            Route("/v1/chat/completions", chat, methods=["POST"]),
            Route("/v1/responses", responses, methods=["POST"]),
            Route("/v1/messages", messages, methods=["POST"]),
            Route("/v1beta/models/{target}", gemini, methods=["POST"]),
            Route("/health", lambda request: Response(b"ok"), methods=["GET"]),
            Route("/stats", lambda request: Response(json.dumps(served).encode()), methods=["GET"]),
        ]
    )


# ---------------------------------------------------------------- helpers shared by the benchmarks
URL_LINE = re.compile(r"^(\S+)\s+(http://\S+)$")


def start_server(command: Sequence[str]) -> tuple[subprocess.Popen[str], dict[str, str]]:
    """Start a server process that prints ``DIALECT URL`` lines; return it and the URL per dialect."""
    proc = subprocess.Popen(list(command), stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    urls: dict[str, str] = {}
    while len(urls) < len(BASE_PATHS):
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError(f"{' '.join(command)} exited before printing its URLs")
        match = URL_LINE.match(line.strip())
        if match:
            urls[match.group(1)] = match.group(2)
    return proc, urls


def stop_server(proc: subprocess.Popen[str]) -> None:
    """Stop a server started by :func:`start_server` (SIGTERM, then SIGKILL after 10 s)."""
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def stub_command(latency_ms: int = 0) -> list[str]:
    """The command line that serves the stub on a free port of 127.0.0.1."""
    return [sys.executable, str(Path(__file__).resolve()), "--port", "0", "--latency-ms", str(latency_ms)]


def process_cpu_seconds(pid: int) -> float:
    """User + system CPU time of another process, all its threads (Linux ``/proc``).

    Reads the scheduler's nanosecond counters (``/proc/PID/task/*/schedstat``) where the kernel
    has them, else the 10 ms ticks of ``/proc/PID/stat``.
    """
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
        return sum(int((task / "schedstat").read_text().split()[0]) for task in tasks) / 1e9
    except (OSError, ValueError, IndexError):
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    """Serve the stub on 127.0.0.1 until interrupted."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=8766, help="port; 0 picks a free one")
    parser.add_argument("--latency-ms", type=int, default=0, help="fixed delay before every reply")
    args = parser.parse_args()
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", args.port))
    sock.listen(2048)
    root = f"http://127.0.0.1:{sock.getsockname()[1]}"
    for dialect, path in BASE_PATHS.items():
        print(f"{dialect:<20} {root}{path}", flush=True)
    app = create_stub_app(args.latency_ms)
    config = uvicorn.Config(app, access_log=False, log_level="warning", lifespan="off")
    uvicorn.Server(config).run(sockets=[sock])


if __name__ == "__main__":
    main()
