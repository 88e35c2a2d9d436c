"""Each adapter brings its own tool-schema rules; an adapter without any sends the schema unchanged."""

from __future__ import annotations

import copy
import importlib
import sys
import types
from collections.abc import Iterable, Iterator, Sequence
from importlib.metadata import EntryPoint
from typing import Any

import pytest

from fcbench import adapters
from fcbench.adapters import openai_chat, openai_responses
from fcbench.adapters.base import (
    Adapter,
    BuiltRequest,
    Capabilities,
    ParsedTurn,
    RequestOptions,
    ToolChoice,
    wire_schema,
)
from fcbench.contract import Message, ProviderErrorOutcome, Tool, ToolCall, ToolResultMessage

MODULE = "fcbench_test_plugin_adapters"
"""The importable module the fake entry points name (put in ``sys.modules`` by the fixture)."""

PARAMS: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {"n": {"oneOf": [{"type": "integer", "minimum": 1}, {"type": "null"}]}},
}
"""A schema every built-in dialect's strict rules would change."""


class LegacyPlugin:
    """A third-party adapter written before ``transform_schema`` existed: it has no such member."""

    dialect = "smoke-signals-legacy"
    capabilities = Capabilities(tool_choice={"auto": "exact"}, parallel_control=False, strict_mode=True)

    def build_request(
        self,
        system: str | None,
        messages: Sequence[Message],
        tools: Sequence[Tool],
        tool_choice: ToolChoice,
        options: RequestOptions,
    ) -> BuiltRequest:
        wire, changes = [], []
        for tool in tools:
            schema, changed = wire_schema(self, tool, options.strict)
            wire.append({"name": tool.name, "schema": schema})
            changes += changed
        return BuiltRequest(path="/signal", body={"tools": wire}, schema_changes=changes)

    def parse_response(self, body: Any, offered_tools: Sequence[str] | None = None) -> ParsedTurn:
        raise NotImplementedError

    def parse_stream(
        self, events: Iterable[tuple[str | None, str]], offered_tools: Sequence[str] | None = None
    ) -> ParsedTurn:
        raise NotImplementedError

    def tool_result_messages(
        self, calls: Sequence[ToolCall], results: Sequence[ToolResultMessage]
    ) -> list[dict[str, Any]]:
        return []

    def auth_headers(self, api_key: str | None) -> dict[str, str]:
        return {}

    def parse_error(self, status: int, body: Any, headers: dict[str, str]) -> ProviderErrorOutcome:
        raise NotImplementedError

    def retry_after_seconds(self, status: int, body: Any, headers: dict[str, str]) -> float | None:
        return None


class NoRulesPlugin(LegacyPlugin):
    """A current third-party adapter that says explicitly it has no schema rules."""

    dialect = "smoke-signals"
    transform_schema = None


@pytest.fixture
def plugins(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Register both plugins the way ``fcbench.adapters`` entry points are resolved."""
    module = types.ModuleType(MODULE)
    module.__dict__.update(LegacyPlugin=LegacyPlugin, NoRulesPlugin=NoRulesPlugin)
    monkeypatch.setitem(sys.modules, MODULE, module)
    found = [
        EntryPoint(name=cls.dialect, value=f"{MODULE}:{cls.__name__}", group="fcbench.adapters")
        for cls in (LegacyPlugin, NoRulesPlugin)
    ]
    monkeypatch.setattr(adapters, "entry_points", lambda group: found if group == "fcbench.adapters" else [])
    adapters.get.cache_clear()
    yield
    adapters.get.cache_clear()


@pytest.mark.usefixtures("plugins")
@pytest.mark.parametrize("dialect", [LegacyPlugin.dialect, NoRulesPlugin.dialect])
@pytest.mark.parametrize("strict", [False, True])
def test_an_adapter_without_schema_rules_sends_the_canonical_schema_unchanged(
    dialect: str, strict: bool
) -> None:
    assert dialect in adapters.dialects()
    adapter = adapters.get(dialect)
    tool = Tool(name="count", description="d", parameters=copy.deepcopy(PARAMS))

    schema, changes = wire_schema(adapter, tool, strict)
    assert schema == PARAMS and changes == []
    schema["properties"]["n"]["mutated"] = True
    assert tool.parameters == PARAMS  # a copy, not the canonical schema itself

    built = adapter.build_request(None, [], [tool], ToolChoice(), RequestOptions(model="m", strict=strict))
    assert built.body["tools"] == [{"name": "count", "schema": PARAMS}] and built.schema_changes == []


@pytest.mark.usefixtures("plugins")
def test_an_adapter_with_no_rules_still_satisfies_the_protocol() -> None:
    assert isinstance(adapters.get(NoRulesPlugin.dialect), Adapter)


@pytest.mark.parametrize("dialect", sorted(adapters.BUILTIN_ADAPTERS))
def test_builtin_adapters_send_their_own_packages_rules(dialect: str) -> None:
    package = adapters.BUILTIN_ADAPTERS[dialect].partition(":")[0]
    own_rules = importlib.import_module(f"{package}.schema")
    adapter = adapters.get(dialect)
    assert isinstance(adapter, Adapter)
    tool = Tool(name="count", description="d", parameters=PARAMS)
    expected = own_rules.transform_schema(tool, True)
    assert wire_schema(adapter, tool, True) == expected
    assert expected[1]  # the strict rules of every built-in dialect change this schema


def test_the_openai_dialects_share_one_rule_set() -> None:
    assert openai_responses.schema.rules is openai_chat.schema.rules
    assert openai_responses.schema.transform_schema is openai_chat.schema.transform_schema
