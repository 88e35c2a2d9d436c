"""Project-wide fixtures: the mock provider on 127.0.0.1, and a guard on every socket.

- The socket guard (installed for the whole session): connecting a socket of this process to
  anything but loopback (127.0.0.0/8, ::1) or a Unix socket raises :class:`NonLocalConnection`,
  so no test can reach a real provider or depend on the network.

- ``mock_server`` (session): root URL of a shared mock server, e.g. ``http://127.0.0.1:43117``.
  Base URL per dialect: ``/v1`` (OpenAI Chat and Responses), root (Anthropic), ``/v1beta`` (Gemini).
- ``mock_server_factory`` (function): ``start(latency_ms=0, faults=None, models=None) -> MockServer``
  for servers with their own options; every server started is stopped after the test.

Fixtures shared by several test folders:

- ``builtin_tools`` (session): every tool of the built-in suites' ``core`` tool sets, by name
  (``fake_tools/``, ``run/``).
- ``bfcl_dir`` (session): the sample BFCL data in ``tests/fixtures/bfcl``; ``imported`` (session):
  ``imported(category) -> (suite_dir, report)``, each sample category imported once per session
  (``bfcl/``, ``grading/``).
- ``core_copy`` / ``refunds_copy``: writable copies of a built-in suite (:class:`SuiteCopy`)
  (``suite/``, ``cli/``).

The suite cache (:mod:`fcbench.suite.cache`) is off for the session and the processes it starts,
so no test writes the user's cache; the tests of the cache give it a folder of their own.

The shared helper modules in ``tests/support/`` (``records_builder``, ``robust_run``, ...) are put on
``sys.path`` here, so any test module can import them by name.
"""

from __future__ import annotations

import ipaddress
import json
import os
import shutil
import socket
import sys
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from fcbench.bfcl.convert import ImportReport, import_bfcl
from fcbench.contract import Tool
from fcbench.mock.server import MockServer
from fcbench.suite.loader import BUILTIN_DIR, load_suite

TESTS = Path(__file__).resolve().parent
SUPPORT_DIR = str(TESTS / "support")
"""Shared test helper modules (not tests): importable from every test module."""
if SUPPORT_DIR not in sys.path:
    sys.path.insert(0, SUPPORT_DIR)

BFCL_DIR = TESTS / "fixtures" / "bfcl"
os.environ.setdefault("FCBENCH_SUITE_CACHE", "off")


class NonLocalConnection(OSError):
    """A test tried to open a connection to something other than 127.0.0.1 / ::1."""


def is_loopback(address: Any) -> bool:
    """Whether a socket address names the loopback interface (or is a Unix socket path)."""
    if isinstance(address, str | bytes):
        return True  # AF_UNIX path
    host = address[0] if isinstance(address, tuple) and address else address
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(str(host).split("%")[0]).is_loopback
    except ValueError:
        return False


_real_connect = socket.socket.connect
_real_connect_ex = socket.socket.connect_ex


def _guarded_connect(self: socket.socket, address: Any) -> None:
    if not is_loopback(address):
        raise NonLocalConnection(f"tests may only connect to 127.0.0.1, not {address!r}")
    return _real_connect(self, address)


def _guarded_connect_ex(self: socket.socket, address: Any) -> int:
    if not is_loopback(address):
        raise NonLocalConnection(f"tests may only connect to 127.0.0.1, not {address!r}")
    return _real_connect_ex(self, address)


@pytest.fixture(scope="session", autouse=True)
def loopback_only() -> Iterator[None]:
    """Refuse every connection to a non-loopback address for the whole session."""
    socket.socket.connect = _guarded_connect  # type: ignore[method-assign]
    socket.socket.connect_ex = _guarded_connect_ex  # type: ignore[method-assign]
    try:
        yield
    finally:
        socket.socket.connect = _real_connect  # type: ignore[method-assign]
        socket.socket.connect_ex = _real_connect_ex  # type: ignore[method-assign]


@pytest.fixture(scope="session")
def mock_server() -> Iterator[str]:
    """Root URL of a mock provider shared by the whole test session."""
    with MockServer() as server:
        yield server.url


@pytest.fixture
def mock_server_factory() -> Iterator[Callable[..., MockServer]]:
    """Start mock servers with options; they are stopped when the test ends."""
    started: list[MockServer] = []

    def start(
        *, latency_ms: int = 0, faults: str | None = None, models: Mapping[str, Any] | None = None
    ) -> MockServer:
        server = MockServer(latency_ms=latency_ms, faults=faults, models=models).start()
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


@pytest.fixture(scope="session")
def builtin_tools() -> dict[str, Tool]:
    """Every tool of the built-in suites' ``core`` tool sets, by name."""
    tools: dict[str, Tool] = {}
    for name in ("core", "refunds"):
        for tool in load_suite(name).tool_sets["core"]:
            tools[tool.name] = tool
    return tools


@pytest.fixture(scope="session")
def bfcl_dir() -> Path:
    """The folder holding the sample BFCL files."""
    return BFCL_DIR


@pytest.fixture(scope="session")
def imported(
    tmp_path_factory: pytest.TempPathFactory, bfcl_dir: Path
) -> Callable[[str], tuple[Path, ImportReport]]:
    """Import a sample category once per session; returns its suite folder and report."""
    done: dict[str, tuple[Path, ImportReport]] = {}

    def get(category: str) -> tuple[Path, ImportReport]:
        if category not in done:
            out = tmp_path_factory.mktemp(f"bfcl-{category}") / "suite"
            report = import_bfcl(bfcl_dir / f"BFCL_v4_{category}.json", out)
            done[category] = (out, report)
        return done[category]

    return get


class SuiteCopy:
    """A writable copy of a built-in suite with helpers to break it in controlled ways."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @property
    def cases_path(self) -> Path:
        return self.path / "cases.jsonl"

    def lines(self) -> list[str]:
        """The lines of cases.jsonl (without line terminators)."""
        text = self.cases_path.read_text(encoding="utf-8")
        return text.removesuffix("\n").split("\n")

    def write_lines(self, lines: list[str]) -> None:
        self.cases_path.write_text("\n".join(lines) + "\n", encoding="utf-8")

    def line_of(self, case_id: str) -> int:
        """1-based line number of the case with ``case_id``."""
        for number, line in enumerate(self.lines(), start=1):
            if line.strip() and json.loads(line)["id"] == case_id:
                return number
        raise KeyError(case_id)

    def edit_case(self, case_id: str, change: Callable[[dict[str, Any]], None]) -> int:
        """Apply ``change`` to one case in place; return its line number."""
        lines = self.lines()
        number = self.line_of(case_id)
        data = json.loads(lines[number - 1])
        change(data)
        lines[number - 1] = json.dumps(data, ensure_ascii=False)
        self.write_lines(lines)
        return number

    def set_line(self, number: int, text: str) -> None:
        lines = self.lines()
        lines[number - 1] = text
        self.write_lines(lines)

    def append(self, case: dict[str, Any]) -> int:
        """Append a case; return its line number."""
        lines = self.lines()
        lines.append(json.dumps(case, ensure_ascii=False))
        self.write_lines(lines)
        return len(lines)

    def tools(self, name: str = "core") -> dict[str, Any]:
        return json.loads((self.path / f"tools.{name}.json").read_text(encoding="utf-8"))

    def write_tools(self, document: dict[str, Any], name: str = "core") -> str:
        """Write a tool-set file (indented like the built-ins) and return its text."""
        text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
        (self.path / f"tools.{name}.json").write_text(text, encoding="utf-8")
        return text


@pytest.fixture
def core_copy(tmp_path: Path) -> SuiteCopy:
    """A writable copy of the built-in ``core`` suite."""
    target = tmp_path / "core"
    shutil.copytree(BUILTIN_DIR / "core", target)
    return SuiteCopy(target)


@pytest.fixture
def refunds_copy(tmp_path: Path) -> SuiteCopy:
    """A writable copy of the built-in ``refunds`` suite."""
    target = tmp_path / "refunds"
    shutil.copytree(BUILTIN_DIR / "refunds", target)
    return SuiteCopy(target)
