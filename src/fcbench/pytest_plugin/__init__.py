"""fcbench's pytest plugin: the mock provider and its simulated models in your own test suite.

Installed with fcbench (entry point ``pytest11``), it adds:

- the ``fcbench_mock`` fixture: a :class:`MockProvider` with the base URL of every dialect of one
  mock server started once per session on a free port of 127.0.0.1, the simulated model to ask
  for and the headers that inject this test's faults;
- the marker ``@pytest.mark.fcbench(model="sim-eager", faults="rate_limit")``, choosing the model
  and the faults of one test;
- the option ``--fcbench-model NAME``: the model of every test whose marker names none (default
  ``sim-careful``), so one suite runs against each simulated model in turn;
- assertion helpers on canonical outcomes (:mod:`fcbench.pytest_plugin.assertions`, importable
  from here): :func:`outcome_of` reads an SDK response, :func:`assert_called`,
  :func:`assert_no_call` and :func:`assert_asked_for` grade it with fcbench's own grader.

Only pytest is imported when the plugin loads: the mock server and the grader load when a test
first uses them, so a test session that never asks for them pays nothing.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from fcbench.mock.server import MockServer
    from fcbench.pytest_plugin.assertions import (
        assert_asked_for,
        assert_called,
        assert_no_call,
        outcome_of,
    )

DEFAULT_MODEL = "sim-careful"
"""The simulated model of a test whose marker names none, unless ``--fcbench-model`` says another."""

MARKER = "fcbench"
"""``@pytest.mark.fcbench(model=..., faults=...)``."""

MARKER_KEYS = frozenset({"model", "faults"})
"""The keyword arguments the marker takes."""

FAULT_HEADER = "X-Fcbench-Fault"
"""The request header the mock reads a request's faults from (``NAME[=VALUE],...``)."""

ASSERTION_NAMES = frozenset({"assert_asked_for", "assert_called", "assert_no_call", "outcome_of"})
"""The helpers of :mod:`fcbench.pytest_plugin.assertions` importable from this module."""


@dataclass(frozen=True)
class MockProvider:
    """The mock provider as one test sees it: where to send requests, which model, which faults."""

    url: str
    """Root URL of the session's mock server, e.g. ``http://127.0.0.1:43117``."""
    base_urls: Mapping[str, str]
    """Dialect -> base URL to give a client of that dialect (``/v1`` for the OpenAI SDK)."""
    model: str
    """The simulated model this test asks for (the marker's, else ``--fcbench-model``)."""
    faults: str | None = None
    """This test's faults (``"rate_limit"``, ``"stream_cut,split_args"``), or None."""
    headers: Mapping[str, str] = field(default_factory=dict)
    """Headers to send with every request (``default_headers=`` of an SDK client): the faults."""

    def base_url(self, dialect: str) -> str:
        """The base URL of ``dialect``; a :class:`LookupError` lists the dialects when it is unknown."""
        try:
            return self.base_urls[dialect]
        except KeyError:
            raise LookupError(f"unknown dialect {dialect!r}; known: {', '.join(self.base_urls)}") from None


def pytest_addoption(parser: pytest.Parser) -> None:
    """``--fcbench-model``: the simulated model of every test whose marker names none."""
    group = parser.getgroup("fcbench", "fcbench mock provider")
    group.addoption(
        "--fcbench-model",
        default=None,
        metavar="NAME",
        help=f"simulated model for tests whose fcbench marker names none (default {DEFAULT_MODEL})",
    )


def pytest_configure(config: pytest.Config) -> None:
    """Register the ``fcbench`` marker."""
    config.addinivalue_line(
        "markers",
        "fcbench(model=None, faults=None): the simulated model and the faults of the fcbench_mock fixture",
    )


def marker_options(node: pytest.Item) -> dict[str, Any]:
    """The marker's keyword arguments (the closest marker wins key by key); a usage error for an
    unknown key or a positional argument."""
    options: dict[str, Any] = {}
    for mark in reversed(list(node.iter_markers(MARKER))):
        unknown = sorted(set(mark.kwargs) - MARKER_KEYS)
        if mark.args or unknown:
            given = ", ".join([*map(repr, mark.args), *unknown])
            raise pytest.UsageError(
                f"{node.nodeid}: @pytest.mark.fcbench takes only model= and faults=, got {given}"
            )
        options.update(mark.kwargs)
    return options


def checked_model(name: Any, where: str) -> str:
    """``name`` when it is a simulated model of the mock, else a usage error listing them."""
    from fcbench.mock.sim import model_names

    known = model_names()
    if name not in known:
        raise pytest.UsageError(f"{where}: unknown simulated model {name!r}; known: {', '.join(known)}")
    return str(name)


def checked_faults(faults: Any, where: str) -> str | None:
    """``faults`` when the mock can read it as a fault header, else a usage error saying why."""
    if faults is None:
        return None
    from fcbench.mock.faults import parse_fault_header

    if not isinstance(faults, str):
        raise pytest.UsageError(f"{where}: faults must be a string like 'rate_limit', got {faults!r}")
    try:
        parse_fault_header(faults)
    except ValueError as exc:
        raise pytest.UsageError(f"{where}: {exc}") from None
    return faults


@pytest.fixture(scope="session")
def fcbench_mock_server() -> Iterator[MockServer]:
    """The session's mock server (in a background thread on a free port of 127.0.0.1)."""
    from fcbench.mock.server import MockServer

    with MockServer() as server:
        yield server


@pytest.fixture
def fcbench_mock(request: pytest.FixtureRequest, fcbench_mock_server: MockServer) -> MockProvider:
    """The mock provider with this test's simulated model and faults (see :class:`MockProvider`)."""
    options = marker_options(request.node)
    default = request.config.getoption("--fcbench-model") or DEFAULT_MODEL
    where = request.node.nodeid
    model = checked_model(options.get("model", default), where)
    faults = checked_faults(options.get("faults"), where)
    return MockProvider(
        url=fcbench_mock_server.url,
        base_urls=fcbench_mock_server.base_urls(),
        model=model,
        faults=faults,
        headers={FAULT_HEADER: faults} if faults else {},
    )


def __getattr__(name: str) -> Any:
    """The assertion helpers, loaded (with the grader) on first use."""
    if name in ASSERTION_NAMES:
        from fcbench.pytest_plugin import assertions

        return getattr(assertions, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "DEFAULT_MODEL",
    "MockProvider",
    "assert_asked_for",
    "assert_called",
    "assert_no_call",
    "fcbench_mock",
    "fcbench_mock_server",
    "outcome_of",
]
