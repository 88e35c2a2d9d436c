"""Provider errors the model caused: a server that could not parse the model's own output.

Some servers turn a reply they cannot parse into an HTTP error instead of returning the text:
llama.cpp's server answers 500 "The model produced output that does not match the expected
peg-native format" (or "Failed to parse input at pos ...") when the model did not write the call
format its chat template asked for; OpenAI answers 500 "The model produced invalid content".
Nothing went wrong with the infrastructure, so such an error is ``model_output_invalid``: still
coverage loss (no model output was received to score), but reported apart from infrastructure
errors, since it is the model's behaviour. Every dialect's errors module refines its server
errors with :func:`refine_model_caused`.
"""

from __future__ import annotations

import re

from fcbench.contract import ProviderErrorCode

MODEL_OUTPUT_INVALID_MESSAGE = re.compile(
    r"model produced (?:invalid content|output that does not match)"
    r"|does not match the expected [\w-]+ format"
    r"|failed to parse (?:input at pos|the model'?s? output|model output|tool call)",
    re.IGNORECASE,
)
"""What servers write when they could not parse what the model generated."""

REFINED_CODES: frozenset[ProviderErrorCode] = frozenset({"server", "bad_response"})
"""The codes a model-caused message refines: a server-side failure, never a rejected request
(a 4xx "failed to parse" is about the request fcbench sent)."""


def refine_model_caused(code: ProviderErrorCode, message: object) -> ProviderErrorCode:
    """``model_output_invalid`` for a server error whose message says the model's output could not
    be parsed, else ``code`` unchanged."""
    if code in REFINED_CODES and isinstance(message, str) and MODEL_OUTPUT_INVALID_MESSAGE.search(message):
        return "model_output_invalid"
    return code
