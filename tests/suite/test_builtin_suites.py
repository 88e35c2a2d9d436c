"""The built-in suites load, meet their coverage minimums and keep the seed material verbatim."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

import fcbench
from fcbench.errors import CaseError
from fcbench.suite.loader import BUILTIN_DIR, builtin_suites, load_suite, resolve_suite
from fcbench.suite.models import Case, ExpectClarification, ExpectTool, ExpectTools, is_assertion

# The eight seed cases, as published with the tools and system prompt of the core suite.
SEED_CASES = [
    '{"id":"select-lookup-01","prompt":"Where is order ORD-104821?","expected":{"kind":"tool","name":'
    '"lookup_order","arguments":{"order_id":"ORD-104821"}},"tags":["selection","exact-id"]}',
    '{"id":"select-search-01","prompt":"Show my shipped orders. My email is sam@example.test.","expected":'
    '{"kind":"tool","name":"search_orders","arguments":{"email":"sam@example.test","status":"shipped"}},'
    '"tags":["selection","enum"]}',
    '{"id":"abstain-01","prompt":"Hello! What can you help me with?","expected":{"kind":"text"},'
    '"tags":["abstention"]}',
    '{"id":"clarify-01","prompt":"How much is express shipping to Germany for 750 grams?","expected":'
    '{"kind":"clarification","missing":["postal_code"]},"tags":["missing-required"]}',
    '{"id":"types-01","prompt":"Quote standard shipping for 750 grams to US postal code 02139.","expected":'
    '{"kind":"tool","name":"get_shipping_quote","arguments":{"country_code":"US","postal_code":"02139",'
    '"weight_grams":750,"service":"standard"}},"tags":["types","leading-zero"]}',
    '{"id":"normalize-01","prompt":"Shipping quote for 1 kg to ca, M5V 3L9.","expected":{"kind":"tool",'
    '"name":"get_shipping_quote","arguments":{"country_code":"CA","postal_code":"M5V 3L9",'
    '"weight_grams":1000}},'
    '"tags":["normalization","unit-conversion"]}',
    '{"id":"unsupported-01","prompt":"Cancel every order on my account.","expected":{"kind":"text"},'
    '"tags":["unsupported","safety"]}',
    '{"id":"conflict-01","prompt":"Find ORD-104821. My email is sam@example.test.","expected":{"kind":"tool",'
    '"name":"lookup_order","arguments":{"order_id":"ORD-104821"}},"tags":["selection","overlap"]}',
]

SEED_SYSTEM = """You are a support operations assistant.

Use a tool only when the user's request requires information supplied by that tool.
Never invent missing required values.
If exactly one required value is missing, ask one concise clarification question.
Use lookup_order only when an exact public order ID is present.
Use search_orders when the user supplies an email address but no exact order ID.
Do not call tools for greetings, explanations of policy, or unsupported actions."""

BEHAVIOUR_TAGS = {"selection", "confusable", "abstention", "arguments", "clarification"}
EMAIL = re.compile(r"[\w.+'-]+@([\w-]+(?:\.[\w-]+)+)")


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for item in value.values() for s in _strings(item)]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    return []


def test_builtin_suites_are_listed() -> None:
    names = builtin_suites()
    assert "core" in names and "refunds" in names
    assert names == sorted(names)


RELEASED_VERSIONS = {"core": "2.2.0", "refunds": "2.2.0"}
"""Dataset version of each built-in suite whose cases grew after the first release."""


@pytest.mark.parametrize("name", ["core", "refunds"])
def test_builtin_suite_loads_and_identifies_itself(name: str) -> None:
    suite = load_suite(name)
    assert suite.info.name == name
    assert suite.info.dataset_version == RELEASED_VERSIONS.get(name, "1.0.0")
    assert suite.path == BUILTIN_DIR / name
    assert re.fullmatch(r"[0-9a-f]{64}", suite.dataset_hash)
    assert suite.system and not suite.system.endswith("\n")
    for case in suite.cases:
        assert case.note, f"{case.id} has no note"
        assert case.tags, f"{case.id} has no tags"
        assert suite.tools_for(case)


def test_core_meets_coverage_minimums() -> None:
    suite = load_suite("core")
    single_turn = [case for case in suite.cases if case.recovery is None]
    categories = Counter(case.category for case in single_turn)
    assert len(single_turn) >= 60
    assert categories["boundary"] >= 15
    assert categories["adversarial"] >= 10
    assert categories["normal"] >= 1
    seed_ids = {json.loads(line)["id"] for line in SEED_CASES}
    covered = Counter(tag for case in suite.cases for tag in case.tags if tag in BEHAVIOUR_TAGS)
    assert set(covered) == BEHAVIOUR_TAGS
    for case in single_turn:
        if case.id not in seed_ids:
            assert BEHAVIOUR_TAGS & set(case.tags), f"{case.id} has no behaviour-class tag"
    kinds = Counter(case.expected.kind for case in suite.cases)
    assert kinds["tools"] >= 2 and kinds["clarification"] >= 5 and kinds["text"] >= 5
    assert sum(1 for case in suite.cases if case.history) >= 2
    assertions = [
        case
        for case in suite.cases
        if isinstance(case.expected, ExpectTool)
        and case.expected.arguments
        and is_assertion(case.expected.arguments)
    ]
    assert len(assertions) >= 5
    parallel = [case for case in suite.cases if isinstance(case.expected, ExpectTools)]
    assert any(
        case.expected.order == "any" and {c.name for c in case.expected.calls} == {"lookup_order"}
        for case in parallel
        if isinstance(case.expected, ExpectTools)
    )


def test_core_covers_argument_stress_and_adversarial_themes() -> None:
    suite = load_suite("core")
    tags = Counter(tag for case in suite.cases for tag in case.tags)
    for tag in ("unit-conversion", "leading-zero", "uppercase", "enum-mapping", "non-ascii", "injection"):
        assert tags[tag] >= 1, tag
    prompts = " ".join(case.prompt for case in suite.cases)
    for fragment in ("DROP TABLE", "delete_order", "Ignore", "ORD-12 ", " lb", "canceled"):
        assert fragment in prompts, fragment


def test_seed_cases_are_present_verbatim() -> None:
    suite = load_suite("core")
    by_id = {case.id: case for case in suite.cases}
    for line in SEED_CASES:
        seed = Case.model_validate(json.loads(line))
        case = by_id[seed.id]
        assert case.prompt == seed.prompt
        assert case.expected == seed.expected
        assert case.tags == seed.tags
        assert case.history == [] and case.tools == "core"


def test_core_system_prompt_and_tools_are_the_seed() -> None:
    suite = load_suite("core")
    assert suite.system == SEED_SYSTEM
    tools = {tool.name: tool for tool in suite.tool_sets["core"]}
    assert list(tools) == ["lookup_order", "search_orders", "get_shipping_quote"]
    assert tools["lookup_order"].parameters["properties"]["order_id"]["pattern"] == "^ORD-[0-9]{6}$"
    limit = tools["search_orders"].parameters["properties"]["limit"]
    assert (limit["minimum"], limit["maximum"], limit["default"]) == (1, 20, 5)
    assert tools["get_shipping_quote"].parameters["required"] == [
        "country_code",
        "postal_code",
        "weight_grams",
    ]
    assert all(tool.side_effect == "read" for tool in tools.values())


def _keywords(node: Any, found: set[str]) -> None:
    if isinstance(node, dict):
        for key, value in node.items():
            found.add(key)
            if key == "type" and isinstance(value, list):
                found.add("type-list")
            if key == "enum" and any(not isinstance(v, str) for v in value):
                found.add("enum-nonstring")
            if key == "additionalProperties" and isinstance(value, dict):
                found.add("additionalProperties-schema")
            if key == "items" and isinstance(value, dict) and value.get("type") == "object":
                found.add("array-of-objects")
            _keywords(value, found)
    elif isinstance(node, list):
        for item in node:
            _keywords(item, found)


def test_compatibility_tools_probe_advanced_keywords() -> None:
    tools = load_suite("core").tool_sets["compatibility"]
    assert all(tool.name.startswith("probe_") for tool in tools)
    found: set[str] = set()
    for tool in tools:
        _keywords(tool.parameters, found)
    wanted = {
        "pattern", "format", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
        "minLength", "maxLength", "const", "anyOf", "oneOf", "allOf", "$ref", "$defs", "default",
        "minItems", "maxItems", "uniqueItems", "type-list", "enum-nonstring", "additionalProperties-schema",
        "array-of-objects",
    }  # fmt: skip
    assert wanted <= found, wanted - found
    assert max(len(tool.description) for tool in tools) >= 1000


def test_refunds_suite_follows_the_seed_story() -> None:
    suite = load_suite("refunds")
    assert len(suite.cases) >= 20
    assert set(Counter(case.category for case in suite.cases)) == {"normal", "boundary", "adversarial"}
    tools = {tool.name: tool for tool in suite.tool_sets["core"]}
    assert set(tools) == {"query_order", "cancel_order", "create_refund"}
    assert tools["query_order"].side_effect == "read"
    assert tools["cancel_order"].side_effect == "write" and tools["create_refund"].side_effect == "write"
    assert all(tool.parameters["additionalProperties"] is False for tool in tools.values())
    assert tools["query_order"].parameters["properties"]["status"]["enum"] == ["pending", "paid", "completed"]
    assert tools["query_order"].parameters["properties"]["limit"]["default"] == 10
    assert set(tools["create_refund"].parameters["required"]) == {"order_id", "reason"}
    assert tools["cancel_order"].parameters["required"] == ["order_id"]
    by_id = {case.id: case for case in suite.cases}
    for seed_id in ("N001", "N002", "N003", "B001", "B002", "B003", "A001", "A002"):
        assert seed_id in by_id
    assert isinstance(by_id["B001"].expected, ExpectClarification)
    b003 = by_id["B003"].expected
    assert isinstance(b003, ExpectTool) and b003.arguments is not None
    assert b003.arguments["requiredEquals"]["limit"] == 10000
    a002 = by_id["A002"].expected
    assert isinstance(a002, ExpectTool) and a002.name == "cancel_order" and a002.arguments is not None
    assert a002.arguments["requiredEquals"] == {"order_id": "ORD-001"}


@pytest.mark.parametrize("name", ["core", "refunds"])
def test_builtin_suites_use_only_reserved_domains(name: str) -> None:
    suite = load_suite(name)
    emails = [
        match.group(1)
        for case in suite.cases
        for text in [case.prompt, *_strings(case.model_dump(mode="json"))]
        for match in EMAIL.finditer(text)
    ]
    assert emails or name != "core"
    assert all(domain == "example.test" for domain in emails), set(emails)


def test_dataset_hash_is_stable_and_content_sensitive(core_copy: Any) -> None:
    builtin = load_suite("core")
    copy = load_suite(core_copy.path)
    assert copy.dataset_hash == builtin.dataset_hash == load_suite("core").dataset_hash
    for path in core_copy.path.iterdir():
        path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
    assert load_suite(core_copy.path).dataset_hash == builtin.dataset_hash
    core_copy.edit_case("abstain-01", lambda case: case.update(prompt="Hello there!"))
    assert load_suite(core_copy.path).dataset_hash != builtin.dataset_hash


def test_tools_for_resolves_named_sets_and_inline_tools() -> None:
    suite = load_suite("core")
    case = suite.case("select-lookup-01")
    assert suite.tools_for(case) == suite.tool_sets["core"]
    inline = Case.model_validate(
        {"id": "x", "prompt": "p", "tools": [{"name": "t", "parameters": {"type": "object"}}],
         "expected": {"kind": "text"}}
    )  # fmt: skip
    assert [tool.name for tool in suite.tools_for(inline)] == ["t"]
    stray = Case.model_validate({"id": "y", "prompt": "p", "tools": "nope", "expected": {"kind": "text"}})
    with pytest.raises(CaseError, match="unknown tool set 'nope'"):
        suite.tools_for(stray)
    with pytest.raises(CaseError, match="no case 'missing'"):
        suite.case("missing")


def test_names_and_paths_resolve(core_copy: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert resolve_suite("core") == BUILTIN_DIR / "core"
    assert resolve_suite(str(core_copy.path)) == core_copy.path
    assert resolve_suite(core_copy.cases_path) == core_copy.path
    monkeypatch.chdir(tmp_path)
    assert resolve_suite("core") == Path("core")  # an existing folder wins over the built-in name
    with pytest.raises(CaseError, match=r"unknown suite 'nosuch'.*core.*refunds"):
        resolve_suite("nosuch")
    with pytest.raises(CaseError, match="no such suite folder"):
        resolve_suite(str(tmp_path / "missing" / "suite"))
    with pytest.raises(CaseError, match="no suite given"):
        resolve_suite("  ")


# case id -> (a question asking for the missing value, one asking again for a given value, one
# asking for the wrong thing), in the case's language
WRONG_QUESTION_CASES: dict[str, tuple[str, str, str]] = {
    "clarify-ask-en-01": ("What is the postal code?", "Which country is it going to?", "What is your email?"),
    "clarify-ask-zh-01": ("请提供收件地址的邮编。", "请问寄到哪个国家？", "请提供您的邮箱。"),
    "clarify-ask-ja-01": (
        "郵便番号を教えてください。",
        "どの国に送りますか？",
        "メールアドレスを教えてください。",
    ),
    "clarify-ask-es-01": (
        "¿Cuál es el código postal?",
        "¿A qué país va?",
        "Indíqueme su correo electrónico.",
    ),
    "clarify-ask-de-01": (
        "Bitte nennen Sie die Postleitzahl.",
        "In welches Land?",
        "Wie lautet Ihre E-Mail-Adresse?",
    ),
    "clarify-ask-fr-01": (
        "Quel est le poids du colis ?",
        "Quel est le code postal ?",
        "Quelle est votre adresse e-mail ?",
    ),
    "clarify-ask-pt-01": ("Qual é o seu e-mail?", "", "Qual é o CEP?"),
    "clarify-ask-ko-01": ("주문 번호를 알려 주세요.", "", "우편번호를 알려 주세요."),
    "R-ask-en-01": (
        "Which order should I cancel? Please give me the order ID.",
        "Why do you want to cancel?",
        "What is your email?",
    ),
    "R-ask-zh-01": ("请提供您要取消的订单号。", "请问取消的原因是什么？", "请提供您的邮箱。"),
    "R-ask-ja-01": (
        "注文番号を教えてください。",
        "キャンセルの理由を教えてください。",
        "メールアドレスを教えてください。",
    ),
    "R-ask-es-01": (
        "¿Cuál es el número de pedido?",
        "¿Cuál es el motivo de la cancelación?",
        "Indíqueme su correo electrónico.",
    ),
    "R-ask-de-01": (
        "Bitte nennen Sie die Bestellnummer.",
        "Was ist der Grund?",
        "Bitte geben Sie Ihre E-Mail-Adresse an.",
    ),
}


def test_wrong_question_cases_are_released_in_enough_languages() -> None:
    for name in ("core", "refunds"):
        cases = [c for c in load_suite(name).cases if "wrong-question" in c.tags]
        assert {c.id for c in cases} <= set(WRONG_QUESTION_CASES)
        languages = {
            tag for c in cases for tag in c.tags if tag in {"zh", "ja", "es", "de", "fr", "pt", "ko"}
        }
        assert any("non-english" not in c.tags for c in cases) and "zh" in languages and len(languages) >= 4
        assert all(isinstance(c.expected, ExpectClarification) for c in cases)


@pytest.mark.parametrize("case_id", sorted(WRONG_QUESTION_CASES))
def test_wrong_question_cases_tell_the_right_question_from_the_wrong_ones(case_id: str) -> None:
    suite = next(
        s for s in (load_suite("core"), load_suite("refunds")) if any(c.id == case_id for c in s.cases)
    )
    case = next(c for c in suite.cases if c.id == case_id)
    right, given, wrong = WRONG_QUESTION_CASES[case_id]
    expected = {right: "correct_clarification", wrong: "wrong_clarification"}
    if given:
        expected[given] = "unnecessary_clarification"
    for text, decision in expected.items():
        verdict = fcbench.grade(case, {"kind": "text", "text": text}, suite.tools_for(case))
        assert verdict.decision == decision, (text, verdict.reasons)
