"""Bedrock error responses: the ``x-amzn-ErrorType`` header decides, the status backs it up."""

from __future__ import annotations

import pytest

from fcbench.adapters.bedrock_converse import BedrockConverse

ADAPTER = BedrockConverse()
NAMESPACE = ":http://internal.amazon.com/coral/com.amazon.bedrock/"


@pytest.mark.parametrize(
    ("status", "kind", "message", "code"),
    [
        (400, "ValidationException", "Malformed input request, please reformat your input.", "bad_request"),
        (
            400,
            "ValidationException",
            "The value at toolConfig.tools.0.toolSpec.inputSchema.json.type must be one of the following: "
            "object.",
            "schema_rejected",
        ),
        (
            400,
            "ValidationException",
            "tools.0.custom.input_schema: JSON schema is invalid",
            "schema_rejected",
        ),
        (
            403,
            "AccessDeniedException",
            "You don't have access to the model with the specified model ID.",
            "auth",
        ),
        (
            403,
            "UnrecognizedClientException",
            "The security token included in the request is invalid.",
            "auth",
        ),
        (404, "ResourceNotFoundException", "Model not found.", "not_found"),
        (408, "ModelTimeoutException", "Model has timed out in processing the request.", "timeout"),
        (424, "ModelErrorException", "The model produced an error.", "server"),
        (429, "ThrottlingException", "Too many requests, please wait before trying again.", "rate_limited"),
        (500, "InternalServerException", "The server encountered an internal error.", "server"),
        (503, "ServiceUnavailableException", "Service is unavailable.", "overloaded"),
    ],
)
def test_error_types_map_to_codes(status: int, kind: str, message: str, code: str) -> None:
    headers = {"x-amzn-ErrorType": kind + NAMESPACE, "x-amzn-RequestId": "r-1"}
    outcome = ADAPTER.parse_error(status, {"message": message}, headers)
    assert (outcome.code, outcome.status) == (code, status)
    assert outcome.message.startswith(message[:40]) and f"type={kind}" in outcome.message


@pytest.mark.parametrize(
    ("status", "code"),
    [(400, "bad_request"), (403, "auth"), (429, "rate_limited"), (502, "server"), (504, "timeout")],
)
def test_without_a_type_the_status_decides(status: int, code: str) -> None:
    assert ADAPTER.parse_error(status, b"", {}).code == code


def test_the_type_may_come_from_the_body_and_the_message_capitalised() -> None:
    outcome = ADAPTER.parse_error(400, '{"__type": "ThrottlingException", "Message": "slow down"}', {})
    assert outcome.code == "rate_limited" and outcome.message.startswith("slow down")


def test_auth_header_and_retry_hint() -> None:
    assert ADAPTER.auth_headers("br-key") == {"Authorization": "Bearer br-key"}
    assert ADAPTER.auth_headers(None) == {}
    assert ADAPTER.retry_after_seconds(429, {}, {"retry-after": "3"}) == 3.0
    assert ADAPTER.retry_after_seconds(429, {}, {}) is None
