"""Tool sets read live from a real MCP server over stdio (``tests/support/mcp_server.py``)."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest

from fcbench.errors import CaseError
from fcbench.suite.loader import load_suite
from fcbench.suite.mcp_tools import fetch_tool_set, parse_source

pytest.importorskip("mcp", reason="the mcp extra is not installed (pip install -e '.[test]')")

SERVER = Path(__file__).resolve().parents[1] / "support" / "mcp_server.py"
COMMAND = shlex.join([sys.executable, str(SERVER)])


def test_parse_source_reads_an_optional_set_prefix() -> None:
    assert parse_source("python s.py --x 1") == ("core", ["python", "s.py", "--x", "1"])
    assert parse_source("billing=python 's p.py'") == ("billing", ["python", "s p.py"])
    assert parse_source("FOO=1 python s.py")[0] == "core"  # an uppercase NAME= is part of the command
    with pytest.raises(CaseError, match="no MCP server command"):
        parse_source("  ")


def test_the_servers_tools_are_listed_and_converted() -> None:
    sourced = fetch_tool_set(COMMAND)
    by_name = {tool.name: tool for tool in sourced.tools}
    assert list(by_name) == ["get_weather", "create_ticket", "search_articles"]
    assert by_name["create_ticket"].side_effect == "write"  # destructiveHint
    assert by_name["search_articles"].side_effect == "read"  # readOnlyHint
    assert by_name["get_weather"].side_effect == "read"  # no annotations
    assert by_name["get_weather"].parameters["required"] == ["city"]
    assert by_name["get_weather"].description == "Current weather for a city."
    record = sourced.record
    assert record.source == f"mcp:{COMMAND}" and record.format == "mcp" and record.tools == 3
    assert (record.server_name, record.server_version) == ("fcbench-test-tools", "1.2.3")
    assert len(record.sha256) == 64 and fetch_tool_set(COMMAND).record.sha256 == record.sha256


def test_a_suite_uses_the_servers_tools_as_its_core_set(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(
        "dataset_version: '1'\n"
        "cases:\n"
        "  - {id: t, prompt: 'Open a ticket titled Broken', expected: {kind: tool, name: create_ticket}}\n"
        "  - {id: e, prompt: hi, tools: extra, expected: {kind: text}}\n",
        encoding="utf-8",
    )
    suite = load_suite(path, [COMMAND, f"extra={COMMAND}"])
    assert [t.name for t in suite.tool_sets["core"]] == ["get_weather", "create_ticket", "search_articles"]
    assert [r.tool_set for r in suite.tool_imports] == ["core", "extra"]
    assert suite.dataset_hash == load_suite(path, [COMMAND, f"extra={COMMAND}"]).dataset_hash
    path.write_text(path.read_text().replace("tools: extra, ", ""), encoding="utf-8")
    assert (
        load_suite(path, [COMMAND]).dataset_hash
        != load_suite(path, [COMMAND, f"extra={COMMAND}"]).dataset_hash
    )


def test_cases_are_checked_against_the_servers_tools(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(
        "dataset_version: '1'\ncases:\n  - {id: t, prompt: x, expected: {kind: tool, name: refund}}\n",
        encoding="utf-8",
    )
    with pytest.raises(CaseError, match=r"s.yaml:3: cases\[0\].expected.name: 'refund' is not a tool"):
        load_suite(path, [COMMAND])


def test_a_server_that_fails_to_start_is_a_clear_error() -> None:
    command = shlex.join(
        [sys.executable, "-c", "import sys; sys.stderr.write('boom: no config'); sys.exit(3)"]
    )
    with pytest.raises(CaseError) as info:
        fetch_tool_set(command)
    message = str(info.value)
    assert message.startswith(f"mcp:{command}: could not list the server's tools")
    assert "boom: no config" in message
