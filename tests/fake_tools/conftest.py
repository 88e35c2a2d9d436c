"""Fixtures for the fake-tool tests: a toolbox over a fresh store, and tool calls as adapters make them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from fcbench.contract import Tool, ToolCall, make_call
from fcbench.fake_tools import FakeStore, FakeToolbox


@pytest.fixture
def toolbox(builtin_tools: dict[str, Tool]) -> FakeToolbox:
    """A toolbox over a fresh store offering every built-in tool."""
    return FakeToolbox(list(builtin_tools.values()), FakeStore.fresh(), conversation_id="conv-test")


@pytest.fixture
def call() -> Callable[..., ToolCall]:
    """``call(name, arguments, id="c1")``: a tool call as an adapter would produce it."""

    def build(name: str, arguments: Any, id: str = "c1") -> ToolCall:
        return make_call(id, name, arguments)

    return build
