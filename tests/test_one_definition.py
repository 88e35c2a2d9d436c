"""One definition per concept: each of these is defined in one module and every other module
imports it, so two parts of fcbench can never give two answers to one question.

Checked by name (no second function, class or registry of that name anywhere in ``src/fcbench``;
every module that exposes the name exposes the one object), and by behaviour on shared probe
values: what ``1.0`` is, what ``{"a": 1.0}`` is written as, whether two call lists are the same
outcome, whether a tool writes, which modes and report formats the CLI offers.
"""

from __future__ import annotations

import ast
import functools
import importlib
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fcbench import adapters
from fcbench.compat.checks import KeywordValidator
from fcbench.compat.classify import capability_cell
from fcbench.compat.probes import STREAM_SUFFIXES, load_probes
from fcbench.contract import MODES, Tool, ToolCallsOutcome, canonical_json, json_type, make_call
from fcbench.fake_tools import FakeStore, FakeToolbox
from fcbench.grading import grade
from fcbench.grading.key import normalised_outcome_key, turn_key
from fcbench.grading.writes import write_tools
from fcbench.metrics.state import outcome_calls
from fcbench.report.render import FORMATS
from fcbench.schema.validate import ValidatorCache
from fcbench.store.view import view_of

SRC = Path(__file__).resolve().parents[1] / "src" / "fcbench"

DEFINED_ONCE: dict[str, str] = {
    "canonical_json": "contract/values.py",
    "json_type": "contract/values.py",
    "json_equal": "grading/jsonvalues.py",
    "call_key": "grading/key.py",
    "normalised_outcome_key": "grading/key.py",
    "turn_key": "grading/key.py",
    "write_tools": "grading/writes.py",
    "MODES": "contract/__init__.py",
    "ANOMALY_CODES": "contract/__init__.py",
    "FcbenchError": "errors.py",
}
"""Concept name -> the one module (under ``src/fcbench``) that defines it."""

RETIRED = ("turn_signature", "ReportFormat", "TransportError")
"""Names of second definitions that were removed: none may come back."""

WRITE_PREDICATE = re.compile(r"^_?(is_write\w*|\w+_is_write|tool_writes|writes_tool)$")
"""Names a second "does this tool write" function would take."""


@functools.cache
def modules() -> tuple[tuple[str, ast.Module], ...]:
    """Every module of the package: its path relative to ``src/fcbench`` and its syntax tree (parsed once)."""
    return tuple(
        (path.relative_to(SRC).as_posix(), ast.parse(path.read_text(encoding="utf-8")))
        for path in sorted(SRC.rglob("*.py"))
    )


def definitions(tree: ast.Module) -> Iterator[str]:
    """Names a module defines: functions and classes at any depth, module-level assignments."""
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            yield node.name
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
        yield from (t.id for t in targets if isinstance(t, ast.Name))


def where_defined() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for rel, tree in modules():
        for name in set(definitions(tree)):
            found.setdefault(name, []).append(rel)
    return found


def test_each_concept_is_defined_in_its_one_module() -> None:
    found = where_defined()
    wrong = {name: found.get(name, []) for name, home in DEFINED_ONCE.items() if found.get(name) != [home]}
    assert not wrong, f"defined elsewhere or more than once (name: modules): {wrong}"
    back = {name: found[name] for name in RETIRED if name in found}
    assert not back, f"removed second definitions are back: {back}"
    predicates = {name: where for name, where in found.items() if WRITE_PREDICATE.match(name)}
    assert not predicates, f"a second write-ness predicate (Tool.writes is the one): {predicates}"


def test_every_module_exposing_a_concept_exposes_the_one_object() -> None:
    ones = {
        name: getattr(importlib.import_module(module_name(home)), name) for name, home in DEFINED_ONCE.items()
    }
    for rel, tree in modules():
        for name in {a.asname or a.name for a in imported_names(tree)} & set(ones):
            if rel != DEFINED_ONCE[name]:
                exposed = getattr(importlib.import_module(module_name(rel)), name)
                assert exposed is ones[name], (
                    f"{rel}: its {name} is not {module_name(DEFINED_ONCE[name])}.{name}"
                )


def module_name(rel: str) -> str:
    parts = ["fcbench", *rel.removesuffix(".py").split("/")]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_names(tree: ast.Module) -> Iterator[ast.alias]:
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("fcbench"):
            yield from node.names


def test_write_ness_is_read_from_side_effect_in_one_place() -> None:
    readers = []
    for rel, tree in modules():
        for node in ast.walk(tree):
            if isinstance(node, ast.Compare) and any(
                isinstance(part, ast.Attribute) and part.attr == "side_effect"
                for part in [node.left, *node.comparators]
            ):
                readers.append(f"{rel}:{node.lineno}")
    assert readers == [f"contract/__init__.py:{tool_writes_line()}"], readers


def tool_writes_line() -> int:
    tree = ast.parse((SRC / "contract" / "__init__.py").read_text(encoding="utf-8"))
    tool = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Tool")
    writes = next(n for n in tool.body if isinstance(n, ast.FunctionDef) and n.name == "writes")
    return next(n.lineno for n in ast.walk(writes) if isinstance(n, ast.Compare))


def literal_strings(node: ast.AST) -> set[str]:
    """The string constants a collection literal or an enum-like class body holds."""
    if isinstance(node, ast.Dict):
        items: list[Any] = list(node.keys)
    elif isinstance(node, ast.Tuple | ast.List | ast.Set):
        items = list(node.elts)
    elif isinstance(node, ast.ClassDef):
        items = [s.value for s in node.body if isinstance(s, ast.Assign)]
    else:
        return set()
    return {i.value for i in items if isinstance(i, ast.Constant) and isinstance(i.value, str)}


def test_no_second_list_of_the_modes_or_the_report_formats() -> None:
    modes = set(MODES) - {"compat"}
    copies = []
    for rel, tree in modules():
        for node in ast.walk(tree):
            held = literal_strings(node)
            if rel != "contract/__init__.py" and modes <= held:
                copies.append(f"{rel}:{node.lineno} lists the modes")
            if rel != "report/render.py" and set(FORMATS) <= held:
                copies.append(f"{rel}:{node.lineno} lists the report formats")
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and rel != "contract/__init__.py"
            ) and modes <= set(re.findall(r"[a-z]+", node.value)):
                copies.append(f"{rel}:{node.lineno} names every mode in a text")
    assert not copies, copies


# ---------------------------------------------------------------- behaviour on shared probe values

PROBE_VALUES: list[Any] = [1, 1.0, 1.5, -0.0, float("inf"), True, False, None, "1", [1], {"a": 1}]


@pytest.mark.parametrize("value", PROBE_VALUES, ids=repr)
def test_json_type_is_the_most_specific_type_the_validator_accepts(value: Any) -> None:
    validators = ValidatorCache()
    accepted = {
        name
        for name in ("null", "boolean", "integer", "number", "string", "array", "object")
        if validators.validate({"type": name}, value).valid
    }
    name = json_type(value)
    assert name in accepted and accepted <= {name, "number"}
    assert accepted == ({"integer", "number"} if name == "integer" else {name})


def test_probe_values_of_json_type_and_canonical_json() -> None:
    assert (json_type(1.0), json_type(True), json_type(1.5)) == ("integer", "boolean", "number")
    assert canonical_json({"a": 1.0}) == canonical_json({"a": 1}) == '{"a":1}'
    assert canonical_json({"b": True, "a": [1.0, "x"]}) == '{"a":[1,"x"],"b":true}'


F_THEN_G = [("f", {"x": 1}), ("g", {"y": 2})]
G_THEN_F = [("g", {"y": 2}), ("f", {"x": 1.0})]


def tool_calls(pairs: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    outcome = ToolCallsOutcome(calls=[make_call(f"c{i}", n, a) for i, (n, a) in enumerate(pairs)])
    return outcome.model_dump()


def compat_stream_agrees(first: dict[str, Any], second: dict[str, Any]) -> bool | None:
    """What compat's stream probe concludes from one streamed and one non-streamed turn."""
    probe = next(p for p in load_probes().capability_probes if p.expect == "stream_agrees")
    records = [
        view_of({"case_id": probe.id + suffix, "repeat": 0, "outcome": o, "mode": "compat", "target": {}})
        for suffix, o in zip(STREAM_SUFFIXES, (first, second), strict=True)
    ]
    cell = capability_cell(probe, records, adapters.dialects()[0], [], KeywordValidator())
    return True if cell.honoured else False if cell.ignored else None


def test_one_answer_to_same_outcome_for_compat_and_metrics() -> None:
    a, b = tool_calls(F_THEN_G), tool_calls(G_THEN_F)
    changed = tool_calls([("f", {"x": "1"}), ("g", {"y": 2})])
    for other, same in ((b, True), (changed, False)):
        answers = {
            "compat stream check": compat_stream_agrees(a, other),
            "turn key": turn_key(a) == turn_key(other),
            "outcome key": normalised_outcome_key(a, "extra_calls")
            == normalised_outcome_key(other, "extra_calls"),
            "metrics' observed calls": metrics_calls(a) == metrics_calls(other),
        }
        assert set(answers.values()) == {same}, answers


def metrics_calls(outcome: dict[str, Any]) -> tuple[str, ...]:
    """The calls of an observation as the metrics compare them (repeats, stream parity)."""
    return outcome_calls(json.dumps(outcome["calls"]).encode())


def test_a_read_only_tool_named_like_a_builtin_write_is_no_write() -> None:
    refund = Tool(name="create_refund", parameters={"type": "object"}, side_effect="read")
    assert not refund.writes and write_tools([refund]) == frozenset()
    assert not FakeToolbox([refund], FakeStore.fresh(), conversation_id="c").writes("create_refund")
    case = {"id": "c", "prompt": "p", "tools": [refund.model_dump()], "expected": {"kind": "text"}}
    verdict = grade(case, ToolCallsOutcome(calls=[make_call("c1", "create_refund", {})]), [refund])
    assert verdict.decision == "unexpected_call" and verdict.unexpected_writes == []


# ---------------------------------------------------------------- the error tree


def drawn_error_classes() -> list[str]:
    import fcbench.errors

    doc = fcbench.errors.__doc__ or ""
    return re.findall(r"^\s*(?:[│├└─\s]*)([A-Z]\w+Error)\s", doc, re.MULTILINE)


def raised_names() -> set[str]:
    raised = set()
    for _, tree in modules():
        for node in ast.walk(tree):
            if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
                func = node.exc.func
                raised.add(func.id if isinstance(func, ast.Name) else getattr(func, "attr", ""))
    return raised


def test_every_class_of_the_drawn_error_tree_is_raised_and_every_error_is_drawn() -> None:
    import fcbench.errors as errors

    drawn = drawn_error_classes()
    defined = sorted(
        name
        for name, value in vars(errors).items()
        if isinstance(value, type) and issubclass(value, errors.FcbenchError)
    )
    assert sorted(drawn) == defined
    raised = raised_names()
    classes = {name: getattr(errors, name) for name in drawn}
    never = [
        name
        for name, cls in classes.items()
        if not any(issubclass(classes[r], cls) for r in raised & set(classes))
    ]
    assert not never, f"drawn in the error tree but never raised (nor any subclass): {never}"


# ---------------------------------------------------------------- the CLI's help, as installed


def help_text(*verb: str) -> str:
    env = {**os.environ, "COLUMNS": "300", "NO_COLOR": "1", "TERM": "dumb"}
    proc = subprocess.run(
        [sys.executable, "-m", "fcbench", *verb, "--help"],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_run_help_lists_exactly_the_mode_table() -> None:
    line = next(line for line in help_text("run").splitlines() if "--mode " in line)
    listed = re.search(r"TEXT\.\.\.\s+(.+?)\s+\(repeatable\)", line)
    assert listed is not None, line
    assert listed.group(1).split(" | ") == list(MODES)


def test_report_help_lists_exactly_the_report_formats() -> None:
    line = next(line for line in help_text("report").splitlines() if "--format" in line)
    listed = re.search(r"Output format: (.+?)\.", line)
    assert listed is not None, line
    assert listed.group(1).split(", ") == list(FORMATS)
