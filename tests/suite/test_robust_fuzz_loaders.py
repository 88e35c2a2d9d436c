"""The suite loader survives arbitrary bytes and text.

Allowed results: a loaded suite, or an :class:`~fcbench.errors.FcbenchError` whose message names the
file. Any other exception (a decoder's RecursionError, a TypeError deep in validation) fails the test.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from robust_checks import FUZZ
from robust_wire import NASTY_STRINGS, damaged_json

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
