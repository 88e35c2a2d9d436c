"""Spans of the real OpenTelemetry GenAI instrumentation of the OpenAI SDK, as OTLP JSON.

Run as a script (the instrumentation reads its settings from the environment once per process):
``python otel_spans.py attributes|events BASE_URL OUT.json``. It instruments the official
``openai`` client with ``opentelemetry-instrumentation-openai-v2``, makes the requests of
:data:`REQUESTS` against ``BASE_URL`` (the mock provider), keeps the spans (and, in the
``events`` style, the GenAI log records) in the SDK's in-memory exporters and writes them with
the OTLP encoders as OTLP JSON (ids in hex, as the OTLP JSON encoding has them).

* ``attributes``: content on the span (``gen_ai.input.messages``, ``gen_ai.output.messages``);
* ``events``: content as GenAI events (``gen_ai.user.message``, ``gen_ai.choice``, ...), emitted
  as log records of the span.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

SECRET = "sk-" + "Q7wErTy9UiOp3AsDfGh2JkLzXc4VbNm8"
"""A made-up key a user pasted into a prompt (must never reach an imported suite)."""

TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "lookup_order",
            "description": "Look up an order by its id.",
            "parameters": {
                "type": "object",
                "properties": {"order_id": {"type": "string", "pattern": "^ORD-[0-9]{6}$"}},
                "required": ["order_id"],
                "additionalProperties": False,
            },
        },
    }
]
"""The tools the instrumented application offers (the instrumentation does not record them)."""

REQUESTS: list[list[dict[str, Any]]] = [
    [
        {"role": "system", "content": "You are the support assistant of a shop."},
        {"role": "user", "content": "Where is my order ORD-104821?"},
    ],
    [
        {"role": "system", "content": "You are the support assistant of a shop."},
        {"role": "user", "content": f"My key is {SECRET}. Can you check order ORD-200300 for me?"},
    ],
]
"""The conversations sent, one request each."""


def _hex_ids(value: Any) -> Any:
    """OTLP JSON spells trace and span ids in hex (protobuf's JSON mapping gives base64)."""
    import base64

    if isinstance(value, dict):
        return {
            k: base64.b64decode(v).hex() if k in ("traceId", "spanId", "parentSpanId") and v else _hex_ids(v)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_hex_ids(v) for v in value]
    return value


def main(style: str, base_url: str, out: Path) -> None:
    os.environ["OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"] = "true"
    if style == "attributes":
        os.environ["OTEL_SEMCONV_STABILITY_OPT_IN"] = "gen_ai_latest_experimental"
        os.environ["OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"] = "SPAN_ONLY"
    import openai
    from google.protobuf.json_format import MessageToDict
    from opentelemetry.exporter.otlp.proto.common._log_encoder import encode_logs
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
    from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor
    from opentelemetry.sdk._logs import LoggerProvider
    from opentelemetry.sdk._logs.export import InMemoryLogRecordExporter, SimpleLogRecordProcessor
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    spans, logs = InMemorySpanExporter(), InMemoryLogRecordExporter()
    tracer_provider, logger_provider = TracerProvider(), LoggerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(spans))
    logger_provider.add_log_record_processor(SimpleLogRecordProcessor(logs))
    OpenAIInstrumentor().instrument(tracer_provider=tracer_provider, logger_provider=logger_provider)
    client = openai.OpenAI(base_url=f"{base_url}/v1", api_key="sk-test", max_retries=0, timeout=20)
    for messages in REQUESTS:
        client.chat.completions.create(model="sim-careful", messages=messages, tools=TOOLS)  # type: ignore[arg-type]
    document: dict[str, Any] = MessageToDict(encode_spans(spans.get_finished_spans()))
    if style == "events":
        document.update(MessageToDict(encode_logs(logs.get_finished_logs())))
    out.write_text(json.dumps(_hex_ids(document), indent=1), encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], Path(sys.argv[3]))
