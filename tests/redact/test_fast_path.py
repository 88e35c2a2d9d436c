"""The redactor's fast path (search the JSON text, walk only when a secret shows) changes nothing."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from fcbench.redact import REDACTED, Redactor

KEY = "sk-test-0123456789abcdefghij"
QUOTED = 'key-with-"quote"-and-\\-0123456789'

texts = st.one_of(
    st.text(max_size=30),
    st.sampled_from(
        [KEY, QUOTED, f"xx{KEY}yy", KEY[:12], KEY[10:], f"{QUOTED[:14]}", "ünï\u2028", KEY.upper()]
        + ["password", "max_tokens", "pwd=hunter22", "Bearer abcdefghijklmnop1234", "a://u:p@h", "AKIA"]
    ),
)
values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), texts),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(texts, inner, max_size=4), st.tuples(inner, inner)
    ),
    max_leaves=12,
)


def walked(redactor: Redactor, value: Any, pieces: bool) -> Any:
    strings = redactor.text_and_pieces if pieces else redactor.text
    return redactor._walk(value, strings)


@settings(max_examples=300, deadline=None)
@given(value=values)
def test_the_fast_path_gives_what_the_walk_gives(value: Any) -> None:
    for redactor in (
        Redactor([KEY]),
        Redactor([QUOTED]),
        Redactor([KEY, QUOTED]),
        Redactor(patterns=True),
        Redactor([KEY], patterns=True),
    ):
        assert redactor.json(value) == walked(redactor, value, pieces=False)
        assert redactor.raw(value) == walked(redactor, value, pieces=True)


def test_a_value_without_secrets_is_returned_as_it_is() -> None:
    body = {"messages": [{"role": "user", "content": "hello"}], "tools": [{"name": "t"}]}
    assert Redactor([KEY]).json(body) is body
    assert Redactor([KEY]).raw(body) is body
    assert Redactor([KEY], patterns=True).raw(body) is body


def test_secrets_and_pieces_are_still_found() -> None:
    redactor = Redactor([KEY, QUOTED])
    assert redactor.json({"a": [f"x{KEY}"]}) == {"a": [f"x{REDACTED}"]}
    assert redactor.json({"q": QUOTED}) == {"q": REDACTED}
    assert redactor.raw([("delta", KEY[:14]), ("delta", KEY[14:])]) == [
        ("delta", REDACTED),
        ("delta", REDACTED),
    ]
