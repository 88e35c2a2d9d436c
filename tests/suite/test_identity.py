"""A case's identity and a suite's authorization rules: read from the suite's files, every problem
named by file, line and key."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from fcbench.errors import CaseError
from fcbench.suite.loader import load_suite
from fcbench.suite.models import Case
from fcbench.suite.reading import SuiteError

RECOVERY = "recovery.jsonl"


def problems(path: Path) -> list[tuple[str, int | None, str]]:
    with pytest.raises(CaseError) as caught:
        load_suite(path)
    assert isinstance(caught.value, SuiteError)
    return [(Path(p.path).name, p.line, p.message) for p in caught.value.problems]


def with_identity(core_copy: Any, identity: Any) -> int:
    """Give the first recovery scenario of the copy ``identity``; its line number."""
    path = core_copy.path / RECOVERY
    lines = path.read_text(encoding="utf-8").splitlines()
    case = json.loads(lines[0]) | {"identity": identity}
    lines[0] = json.dumps(case, ensure_ascii=False)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return 1


def test_an_identity_is_read_from_a_case_line(core_copy: Any) -> None:
    with_identity(core_copy, {"user": "kim@example.test", "scopes": ["orders:read"], "probe": True})
    suite = load_suite(core_copy.path)
    identities = [case.identity for case in suite.cases if case.identity is not None]
    assert any(i.user == "kim@example.test" and i.scopes == ["orders:read"] and i.probe for i in identities)


@pytest.mark.parametrize(
    ("identity", "fragment"),
    [
        ({"scopes": ["orders:read"]}, "identity.user"),
        ({"user": "   "}, "identity.user"),
        ({"user": "kim@example.test", "scopes": [""]}, "identity.scopes"),
        ({"user": "kim@example.test", "role": "admin"}, "identity.role"),
        ("kim@example.test", "identity"),
    ],
)
def test_a_bad_identity_names_the_file_line_and_key(core_copy: Any, identity: Any, fragment: str) -> None:
    line = with_identity(core_copy, identity)
    found = problems(core_copy.path)
    assert any(name == RECOVERY and at == line and fragment in message for name, at, message in found), found


def test_a_case_without_an_identity_serialises_as_before() -> None:
    case = Case.model_validate({"id": "c", "prompt": "p", "expected": {"kind": "text"}})
    assert case.identity is None and "identity" not in case.model_dump()


def test_a_bad_authorization_rule_in_store_json_names_the_file_line_and_key(core_copy: Any) -> None:
    store = {
        "orders": [{"order_id": "ORD-000001", "owner": "kim@example.test", "status": "paid"}],
        "authorization": {"tools": {"lookup_order": {"scopes": "orders:read"}}},
    }
    (core_copy.path / "store.json").write_text(json.dumps(store, indent=2) + "\n", encoding="utf-8")
    found = problems(core_copy.path)
    line = next(n for n, text in enumerate(json.dumps(store, indent=2).splitlines(), 1) if '"scopes"' in text)
    assert any(
        name == "store.json" and at == line and "authorization.tools.lookup_order.scopes" in message
        for name, at, message in found
    ), found


def test_a_good_store_json_with_rules_loads(core_copy: Any) -> None:
    store = {"orders": [], "authorization": {"tools": {"lookup_order": {"scopes": ["orders:read"]}}}}
    (core_copy.path / "store.json").write_text(json.dumps(store), encoding="utf-8")
    assert load_suite(core_copy.path).cases
