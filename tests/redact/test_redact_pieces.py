"""Secrets are redacted in every container the adapters keep, and in pieces split across deltas."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from fcbench.redact import MIN_FRAGMENT, REDACTED, Redactor

KEY_CHARS = st.sampled_from("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")
keys = st.text(KEY_CHARS, min_size=24, max_size=64).map(lambda s: "sk-" + s)
prose = st.text(st.characters(codec="utf-8", exclude_characters="\x00"), max_size=20)


def chat_delta(text: str) -> tuple[None, str]:
    return (None, json.dumps({"choices": [{"delta": {"content": text}}]}))


def test_stream_events_kept_as_tuples_are_redacted() -> None:
    key = "sk-live-ABCDEFGHIJKLMNOPQRSTUV"
    raw = {
        "response": {"events": [("message_delta", json.dumps({"text": f"your key is {key}"})), (None, key)]}
    }
    redacted = Redactor([key]).json(raw)
    assert key not in json.dumps(redacted)
    assert redacted["response"]["events"][0][0] == "message_delta"
    assert isinstance(redacted["response"]["events"][0], tuple)


@settings(max_examples=150, deadline=None)
@given(key=keys, cut=st.floats(0.3, 0.7), before=prose, after=prose)
def test_a_key_split_in_two_stream_deltas_leaves_no_piece(
    key: str, cut: float, before: str, after: str
) -> None:
    at = max(MIN_FRAGMENT, min(len(key) - MIN_FRAGMENT, int(len(key) * cut)))
    first, second = key[:at], key[at:]
    events = [chat_delta(before + first), chat_delta(second + after), (None, "[DONE]")]
    redacted = Redactor([key]).raw({"events": events, "nested": [[tuple(events)]]})
    text = json.dumps(redacted, ensure_ascii=False)
    assert first not in text and second not in text
    for event_name, data in redacted["events"][:2]:
        assert event_name is None
        assert REDACTED in json.loads(data)["choices"][0]["delta"]["content"]


@settings(max_examples=100, deadline=None)
@given(key=keys, words=st.lists(st.text(KEY_CHARS, min_size=1, max_size=7), max_size=8))
def test_text_without_a_piece_of_the_key_is_left_alone(key: str, words: list[str]) -> None:
    text = " ".join(words)
    if any(key[i : i + MIN_FRAGMENT] in text for i in range(len(key) - MIN_FRAGMENT + 1)):
        return
    assert Redactor([key]).raw(text) == text


def test_short_secrets_are_only_redacted_whole() -> None:
    redactor = Redactor(["sim-key"])
    assert redactor.raw("the sim-key and sim-ke") == f"the {REDACTED} and sim-ke"


def test_pieces_are_redacted_in_raw_string_values_only() -> None:
    key = "sk-lab-gemini-responses-0123456789"
    redactor = Redactor([key])
    canonical = {"response_id": "resp_1", "text": "responses are fine"}
    assert redactor.json(canonical) == canonical  # canonical values keep their structure
    raw = redactor.raw({"response_id": "gemini-responses", "events": [(None, '{"t":"sk-lab-gemini-respo"}')]})
    assert "response_id" in raw and raw["response_id"] == REDACTED
    assert "sk-lab-gemini-respo" not in raw["events"][0][1]
