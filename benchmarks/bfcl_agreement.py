"""How often fcbench's BFCL profiles agree with BFCL's own checker, on the BFCL sample.

    .venv/bin/pip install --no-deps --target /somewhere/bfcl-eval bfcl-eval==2026.3.23
    .venv/bin/python benchmarks/bfcl_agreement.py --bfcl-eval /somewhere/bfcl-eval [--data DIR]

``--data`` is a folder of BFCL category files with ``possible_answer/`` (default: the sample in
``tests/fixtures/bfcl``). Each category (simple_python, multiple, parallel, irrelevance) is
imported (``fcbench import bfcl``) and run once against the four simulated models on the mock
(``fcbench run``). Every observation is then scored twice:

- **function calling**: fcbench's ``bfcl`` profile against BFCL's ``ast_checker`` on the calls as
  made (BFCL's FC decoding: ``{name: arguments}``; arguments that did not parse, or a text, are
  no call), the irrelevance rule as BFCL's runner applies it (passes when nothing decodes to a
  call);
- **prompt format**: the observation's calls written as a prompted model writes them, in BFCL's
  prompt format (``[orig.name(key=value, ...)]``, original names; a text stays as it was), scored
  by fcbench's ``bfcl_prompt`` profile against BFCL's own ``default_decode_ast_prompting`` and
  ``ast_checker``.

It prints the agreement on pass/fail per category and mode (n/d) and the disagreements (case id,
both verdicts, fcbench's reasons and BFCL's error). BFCL's checker is imported from the wheel,
installed without its dependencies: the few third-party modules its checker and decoder import
but never use for Python categories (tree-sitter parsers, tenacity, filelock, dotenv) and its
model table are stubbed.
"""

from __future__ import annotations

import argparse
import importlib.abc
import importlib.machinery
import json
import subprocess
import sys
import tempfile
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CATEGORIES = ("simple_python", "multiple", "parallel", "irrelevance")
STUBBED = ("tree_sitter", "tree_sitter_java", "tree_sitter_javascript", "tenacity", "filelock", "dotenv")
MODEL_TABLE = "bfcl_eval.constants.model_config"
FC_MODEL, PROMPT_MODEL = "fcbench-fc", "fcbench-prompt"
"""Model names given to BFCL's checker: FC names were made legal (``.`` -> ``_``), prompt ones not."""


class _Anything(types.ModuleType):
    """A module where every name is a callable returning itself (a stub for an unused dependency)."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return _Anything(name)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self


class _Stubs(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name: str, path: Any, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        if name.split(".")[0] in STUBBED or name == MODEL_TABLE:
            return importlib.machinery.ModuleSpec(name, self)
        return None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        return _Anything(spec.name)

    def exec_module(self, module: types.ModuleType) -> None:
        if module.__name__ == MODEL_TABLE:
            table = {
                FC_MODEL: types.SimpleNamespace(underscore_to_dot=True),
                PROMPT_MODEL: types.SimpleNamespace(underscore_to_dot=False),
            }
            module.MODEL_CONFIG_MAPPING = table  # type: ignore[attr-defined]


def bfcl_checker(lib: Path) -> tuple[Callable[..., dict[str, Any]], Callable[[str], list[Any]], Any]:
    """BFCL's ``ast_checker``, ``default_decode_ast_prompting`` and ``Language.PYTHON`` from ``lib``."""
    sys.path.insert(0, str(lib))
    sys.meta_path.insert(0, _Stubs())
    from bfcl_eval.constants.enums import Language
    from bfcl_eval.eval_checker.ast_eval.ast_checker import ast_checker
    from bfcl_eval.model_handler.utils import default_decode_ast_prompting

    return ast_checker, default_decode_ast_prompting, Language.PYTHON


def jsonl(path: Path) -> dict[str, dict[str, Any]]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return {row["id"]: row for row in rows}


def fcbench(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "fcbench", *args], capture_output=True, text=True, check=False, cwd=ROOT
    )


def run_category(data: Path, category: str, work: Path) -> tuple[Path, Path]:
    """Import ``category`` and run it once on the simulated models; (suite folder, run folder)."""
    suite = work / f"suite-{category}"
    done = fcbench("import", "bfcl", str(data / f"BFCL_v4_{category}.json"), "--out", str(suite))
    if done.returncode != 0:
        raise SystemExit(f"import {category} failed: {done.stderr[-2000:]}")
    out = work / f"runs-{category}"
    done = fcbench("run", "--suite", str(suite), "--repeats", "1", "--out", str(out), "--no-progress",
                   "--min-coverage", "0", "--concurrency", "16")  # fmt: skip
    runs = sorted(out.iterdir()) if out.is_dir() else []
    if not runs:
        raise SystemExit(f"run {category} failed: {done.stderr[-2000:]}")
    return suite, runs[0]


def literal(value: Any) -> str:
    """A JSON value as a Python literal, as a prompted model writes it."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{literal(k)}: {literal(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(literal(v) for v in value) + "]"
    return repr(value)


def prompt_text(outcome: dict[str, Any], name_map: dict[str, str]) -> str:
    """The outcome as a prompted model would have written it (a text stays as it was)."""
    if outcome.get("kind") != "tool_calls":
        return str(outcome.get("text") or "")
    calls = []
    for call in outcome.get("calls") or []:
        arguments = call.get("arguments")
        if not isinstance(arguments, dict):
            return str(call.get("raw_arguments") or "")  # no literal to write: BFCL cannot decode it
        written = ", ".join(f"{key}={literal(value)}" for key, value in arguments.items())
        calls.append(f"{name_map.get(call['name'], call['name'])}({written})")
    return "[" + ", ".join(calls) + "]"


def fc_output(outcome: dict[str, Any]) -> list[dict[str, Any]] | None:
    """BFCL's decoding of a function-calling reply: ``[{name: arguments}]``; None when nothing decodes."""
    if outcome.get("kind") != "tool_calls":
        return None
    calls = outcome.get("calls") or []
    if not calls or any(not isinstance(c.get("arguments"), dict) for c in calls):
        return None
    return [{c["name"]: c["arguments"]} for c in calls]


class Checker:
    """BFCL's side: the checker applied as BFCL's runner applies it."""

    def __init__(self, lib: Path) -> None:
        self.ast_checker, self.decode, self.python = bfcl_checker(lib)

    def verdict(
        self, category: str, question: dict[str, Any], answer: dict[str, Any] | None, output: Any, model: str
    ) -> tuple[bool, str]:
        """(passed, BFCL's error) of one decoded output (None: nothing decoded)."""
        calls = isinstance(output, list) and bool(output) and all(isinstance(c, dict) for c in output)
        if category == "irrelevance":
            return (not calls, "" if not calls else "a call decoded where none is relevant")
        if not calls or answer is None:
            return False, "no call decoded"
        try:
            found = self.ast_checker(question["function"], output, answer["ground_truth"], self.python,
                                     category, model)  # fmt: skip
        except Exception as exc:  # BFCL's checker fails on some outputs; BFCL counts them as failures
            return False, f"checker raised {type(exc).__name__}: {exc}"
        return bool(found["valid"]), "; ".join(map(str, found.get("error") or []))[:200]

    def prompt_output(self, text: str) -> Any:
        try:
            return self.decode(text)
        except Exception:  # noqa: BLE001 (BFCL's decoding failure: no call)
            return None


def compare(checker: Checker, data: Path, category: str, work: Path) -> dict[str, Any]:
    """Agreement of both modes on one category (see the module docstring)."""
    sys.path.insert(0, str(ROOT / "src"))
    from fcbench import grade
    from fcbench.store.view import run_views
    from fcbench.suite.loader import load_suite

    suite_dir, run_dir = run_category(data, category, work)
    suite = load_suite(suite_dir)
    cases = {case.id: case for case in suite.cases}
    questions = jsonl(data / f"BFCL_v4_{category}.json")
    answer_file = data / "possible_answer" / f"BFCL_v4_{category}.json"
    answers = jsonl(answer_file) if answer_file.exists() else {}
    result: dict[str, Any] = {"fc": [0, 0, 0], "prompt": [0, 0, 0], "disagreements": []}
    for view in run_views(run_dir):
        outcome = view.outcome.data()
        if outcome.get("kind") == "provider_error":
            continue
        case = cases[view.case_id]
        tools = suite.tools_for(case)
        question, answer = questions[view.case_id], answers.get(view.case_id)
        text = prompt_text(outcome, dict(case.name_map or {}))
        sides = {
            "fc": (grade(case, outcome, tools, profile="bfcl"),
                   checker.verdict(category, question, answer, fc_output(outcome), FC_MODEL)),
            "prompt": (grade(case, {"kind": "text", "text": text}, tools, profile="bfcl_prompt"),
                       checker.verdict(category, question, answer, checker.prompt_output(text),
                                       PROMPT_MODEL)),
        }  # fmt: skip
        for mode, (ours, (theirs, error)) in sides.items():
            result[mode][1] += 1
            result[mode][2] += theirs
            if ours.passed == theirs:
                result[mode][0] += 1
                continue
            result["disagreements"].append(
                {"mode": mode, "case": view.case_id, "target": view.label, "fcbench": ours.passed,
                 "bfcl": theirs, "reasons": ours.reasons[:2], "bfcl_error": error}
            )  # fmt: skip
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--bfcl-eval", type=Path, required=True, help="bfcl-eval installed with --no-deps --target"
    )
    parser.add_argument("--data", type=Path, default=ROOT / "tests" / "fixtures" / "bfcl")
    parser.add_argument("--show", type=int, default=10, help="disagreements listed per category")
    args = parser.parse_args()
    checker = Checker(args.bfcl_eval)
    totals = {"fc": [0, 0, 0], "prompt": [0, 0, 0]}
    with tempfile.TemporaryDirectory() as tmp:
        for category in CATEGORIES:
            found = compare(checker, args.data, category, Path(tmp))
            for mode in totals:
                n, d, passed = found[mode]
                totals[mode] = [a + b for a, b in zip(totals[mode], found[mode], strict=True)]
                print(f"{category:14} {mode:6} agree {n}/{d} ({n / d:.1%}), BFCL passed {passed}")
            for row in found["disagreements"][: args.show]:
                print("   ", json.dumps(row, ensure_ascii=False))
    for mode, (n, d, passed) in totals.items():
        print(f"all            {mode:6} agree {n}/{d} ({n / d:.1%}), BFCL passed {passed}")


if __name__ == "__main__":
    main()
