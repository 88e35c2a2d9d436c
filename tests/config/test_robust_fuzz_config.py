"""The config loader survives arbitrary bytes and text.

Allowed results: a loaded config, or an :class:`~fcbench.errors.FcbenchError` whose message names the
file. Any other exception (a decoder's RecursionError, a TypeError deep in validation) fails the test.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st
from robust_checks import FUZZ

from fcbench.config import RunConfig, load_config
from fcbench.errors import FcbenchError

DEEP_TEXT = "[" * 5_000 + "]" * 5_000


CONFIG_KEYS = sorted({*RunConfig.model_fields, "datasetVersion", "timeoutMs", "unknown_key"})


def _config_texts() -> st.SearchStrategy[str]:
    """Config texts: arbitrary text, YAML/JSON mappings of real keys to junk, deep nesting, aliases."""
    junk: st.SearchStrategy[Any] = st.recursive(
        st.one_of(
            st.none(),
            st.booleans(),
            st.integers(),
            st.floats(),
            st.text(max_size=20),
            st.sampled_from(["sim:sim-careful", "core", "openai-chat", "nope:x", "selection"]),
        ),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
        max_leaves=10,
    )
    mapping = st.dictionaries(st.sampled_from(CONFIG_KEYS), junk, max_size=5)
    return st.one_of(
        st.text(max_size=200),
        mapping.map(lambda m: yaml.safe_dump(m, allow_unicode=True)),
        mapping.map(lambda m: json.dumps(m)),
        st.just(DEEP_TEXT),
        st.just("a: &a [x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a]\ntargets: *b\n"),
        st.just("!!python/object/apply:os.system ['echo pwned']\n"),
        st.just("suite: !!binary aGVsbG8=\n"),
        st.just("{{{{"),
    )


def test_load_config_on_arbitrary_text(tmp_path: Path) -> None:
    path = tmp_path / "fuzzed.yaml"

    @FUZZ
    @given(text=_config_texts(), bom=st.booleans())
    def run(text: str, bom: bool) -> None:
        path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8", "surrogatepass"))
        try:
            config = load_config(path)
        except FcbenchError as exc:
            assert str(path) in str(exc), str(exc)
            return
        assert isinstance(config, RunConfig)

    run()


@pytest.mark.parametrize("content", [b"", b"\xef\xbb\xbf", b"\n\r\n", b"\xff\xfe\x00"])
def test_degenerate_config_files(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "degenerate.yaml"
    path.write_bytes(content)
    with pytest.raises(FcbenchError) as caught:
        load_config(path)
    assert str(path) in str(caught.value)
