"""The README's Python example runs and gives what the README says."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_python_api_example_matches_its_comments() -> None:
    text = README.read_text(encoding="utf-8")
    block = re.search(r"## Python API\n\n```python\n(.*?)```", text, re.S)
    assert block is not None
    code = block.group(1)
    namespace: dict[str, object] = {}
    lines = [
        line.split("#")[0].rstrip() if line.startswith("verdict.") else line for line in code.splitlines()
    ]
    exec(compile("\n".join(lines), "README", "exec"), namespace)  # noqa: S102 - our own README
    verdict = namespace["verdict"]
    assert verdict.decision == "correct_call"  # type: ignore[attr-defined]
    assert verdict.schema_valid is False  # type: ignore[attr-defined]
    assert verdict.passed is False  # type: ignore[attr-defined]
    for line in code.splitlines():
        if line.startswith("verdict.") and "#" in line:
            expression, comment = line.split("#", 1)
            assert repr(eval(expression.strip(), namespace)) == comment.strip()  # noqa: S307


def test_readme_first_screen_has_the_two_commands() -> None:
    text = README.read_text(encoding="utf-8")
    first = text[: text.index("## ")] if "## " in text else text
    assert 'python3 -m venv .venv && .venv/bin/pip install -e ".[test]" && .venv/bin/fcbench run' in first
    assert ".venv/bin/python -m pytest" in first
    ci = (README.parent / ".ci" / "run").read_text(encoding="utf-8")
    assert ci.rstrip().splitlines()[-1] == ".venv/bin/python -m pytest"
