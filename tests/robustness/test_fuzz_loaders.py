"""The suite and config loaders survive arbitrary bytes and text.

Allowed results: a loaded suite or config, or an :class:`~fcbench.errors.FcbenchError` whose message
names the file. Any other exception (a decoder's RecursionError, a TypeError deep in validation)
fails the test.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st
from robust_checks import FUZZ
from robust_wire import NASTY_STRINGS, damaged_json

from fcbench.config import RunConfig, load_config
from fcbench.errors import FcbenchError
from fcbench.suite.loader import BUILTIN_DIR, Suite, load_suite

CORE = BUILTIN_DIR / "core"
REAL_CASES = [
    json.loads(line)
    for line in (CORE / "cases.jsonl").read_text(encoding="utf-8").splitlines()
    if line.strip()
]
DEEP_TEXT = "[" * 5_000 + "]" * 5_000


def _suite_folder(root: Path) -> Path:
    """A minimal writable suite: the core suite's identity, system prompt and tools, no cases yet."""
    folder = root / "fuzzed-suite"
    folder.mkdir()
    for name in ("suite.json", "system.txt", "tools.core.json"):
        shutil.copy(CORE / name, folder / name)
    return folder


def _case_lines() -> st.SearchStrategy[bytes]:
    """cases.jsonl bytes: real cases damaged, junk lines, mixed line endings, BOMs, bad bytes."""
    damaged = st.sampled_from(REAL_CASES).flatmap(lambda case: damaged_json(case, "openai-chat"))
    line = st.one_of(
        st.sampled_from(REAL_CASES).map(json.dumps),
        damaged.map(json.dumps),
        st.sampled_from(NASTY_STRINGS).map(json.dumps),
        st.just(DEEP_TEXT),
        st.just('{"id": "x", "id": "y"}'),
        st.just("NaN"),
        st.text(max_size=60),
    )
    encoded = line.flatmap(
        lambda text: st.sampled_from(
            [
                text.encode("utf-8", "surrogatepass"),
                text.encode("utf-8", "surrogatepass") + b"\xff\xfe",
                b"\xef\xbb\xbf" + text.encode("utf-8", "surrogatepass"),
                text.encode("utf-16", "surrogatepass"),
            ]
        )
    )
    joiner = st.sampled_from([b"\n", b"\r\n", b"\r", b"\n\n"])
    return st.one_of(
        st.binary(max_size=300),
        st.tuples(st.lists(encoded, min_size=1, max_size=6), joiner).map(lambda t: t[1].join(t[0])),
    )


def test_load_suite_on_arbitrary_cases_files(tmp_path: Path) -> None:
    folder = _suite_folder(tmp_path)
    cases = folder / "cases.jsonl"

    @FUZZ
    @given(content=_case_lines())
    def run(content: bytes) -> None:
        cases.write_bytes(content)
        try:
            suite = load_suite(folder)
        except FcbenchError as exc:
            message = str(exc)
            assert "cases.jsonl" in message, message
            assert "Traceback" not in message
            return
        assert isinstance(suite, Suite) and suite.cases

    run()


def test_load_suite_on_arbitrary_tool_files(tmp_path: Path) -> None:
    folder = _suite_folder(tmp_path)
    shutil.copy(CORE / "cases.jsonl", folder / "cases.jsonl")
    tools_path = folder / "tools.core.json"
    real_tools = json.loads(tools_path.read_text(encoding="utf-8"))

    @FUZZ
    @given(
        content=st.one_of(
            damaged_json(real_tools, "openai-chat").map(lambda v: json.dumps(v).encode()),
            st.binary(max_size=200),
            st.just(DEEP_TEXT.encode()),
        )
    )
    def run(content: bytes) -> None:
        tools_path.write_bytes(content)
        try:
            load_suite(folder)
        except FcbenchError as exc:
            assert "tools.core.json" in str(exc) or "cases.jsonl" in str(exc), str(exc)

    run()


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
