"""What OpenAI's two dialects (Chat Completions and Responses) share: auth, errors, listing."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from fcbench.mock.common import MockError
from fcbench.mock.dialect import bearer_token

OPENAI_ERROR_STATUS: Mapping[str, int] = {
    "invalid_request": 400,
    "auth": 401,
    "not_found": 404,
    "rate_limit": 429,
    "server": 500,
    "overloaded": 503,
    "timeout": 504,
}
"""Error kind -> status (protocols.md section 1.5)."""

_ERROR_TYPE: Mapping[str, str] = {
    "invalid_request": "invalid_request_error",
    "auth": "invalid_request_error",
    "not_found": "invalid_request_error",
    "rate_limit": "requests",
    "server": "server_error",
    "overloaded": "server_error",
    "timeout": "server_error",
}

_DEFAULT_CODE: Mapping[str, str | None] = {
    "auth": "invalid_api_key",
    "rate_limit": "rate_limit_exceeded",
}

INVALID_JSON_MESSAGE = (
    "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your "
    "HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON. "
    "If you have trouble figuring out how to fix this, please contact us through our help center at "
    "help.openai.com.)"
)


class OpenAIBase:
    """Behaviour shared by the OpenAI dialects."""

    error_status: Mapping[str, int] = OPENAI_ERROR_STATUS

    def api_key(self, headers: Mapping[str, str], query: Mapping[str, str]) -> str | None:
        """OpenAI keys come as ``Authorization: Bearer``."""
        return bearer_token(headers)

    def check_headers(self, headers: Mapping[str, str]) -> None:
        """OpenAI requires no header besides the key."""

    def missing_key(self) -> MockError:
        """401 as OpenAI answers a request without a key."""
        return MockError(
            "auth",
            "You didn't provide an API key. You need to provide your API key in an Authorization header "
            "using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
        )

    def invalid_json(self, detail: str) -> MockError:
        """400 as OpenAI answers a body that is not JSON."""
        return MockError("invalid_request", INVALID_JSON_MESSAGE)

    def error_body(self, error: MockError, request_id: str) -> tuple[dict[str, Any], dict[str, str]]:
        """``{"error": {message, type, param, code}}`` plus ``x-request-id`` and retry headers."""
        code = error.code if error.code is not None else _DEFAULT_CODE.get(error.kind)
        body = {
            "error": {
                "message": error.message,
                "type": _ERROR_TYPE.get(error.kind, "invalid_request_error"),
                "param": error.param,
                "code": code,
            }
        }
        headers = {"x-request-id": request_id}
        if error.kind == "rate_limit":
            wait = error.retry_after if error.retry_after is not None else 1
            headers.update(
                {
                    "retry-after": str(wait),
                    "x-ratelimit-limit-requests": "500",
                    "x-ratelimit-remaining-requests": "0",
                    "x-ratelimit-reset-requests": f"{wait}s",
                }
            )
        return body, headers

    def models_list(self, names: Sequence[str]) -> dict[str, Any]:
        """``GET /v1/models`` in OpenAI's shape."""
        return {
            "object": "list",
            "data": [
                {"id": name, "object": "model", "created": 1700000000, "owned_by": "fcbench"}
                for name in names
            ],
        }


def usage_chat(input_tokens: int, output_tokens: int) -> dict[str, Any]:
    """Chat Completions ``usage`` object with its detail sub-objects."""
    return {
        "prompt_tokens": input_tokens,
        "completion_tokens": output_tokens,
        "total_tokens": input_tokens + output_tokens,
        "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
        "completion_tokens_details": {
            "reasoning_tokens": 0,
            "audio_tokens": 0,
            "accepted_prediction_tokens": 0,
            "rejected_prediction_tokens": 0,
        },
    }


def usage_responses(input_tokens: int, output_tokens: int) -> dict[str, Any]:
    """Responses ``usage`` object."""
    return {
        "input_tokens": input_tokens,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": output_tokens,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": input_tokens + output_tokens,
    }


def not_found_error(model: str) -> MockError:
    """Chat Completions' 404 for an unknown model (recorded real wording)."""
    return MockError(
        "not_found",
        f"The model `{model}` does not exist or you do not have access to it.",
        code="model_not_found",
    )
