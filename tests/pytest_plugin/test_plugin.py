"""The plugin as users get it: pytest loads it from the installed entry point, and the documented
example (``examples/pytest-agent``, an agent written with the OpenAI SDK) runs against the mock in
a pytest subprocess, once per simulated model."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
import xml.etree.ElementTree as ET
from importlib.metadata import entry_points
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "pytest-agent"

MARKER_TESTS = """
import pytest

pytestmark = pytest.mark.fcbench(model="sim-sloppy")


def test_module_marker(fcbench_mock):
    assert fcbench_mock.model == "sim-sloppy"
    assert fcbench_mock.headers == {}


@pytest.mark.fcbench(model="sim-eager", faults="rate_limit,split_args")
def test_own_marker(fcbench_mock):
    assert fcbench_mock.model == "sim-eager"
    assert fcbench_mock.headers == {"X-Fcbench-Fault": "rate_limit,split_args"}
    assert fcbench_mock.base_url("openai-chat") == fcbench_mock.url + "/v1"


@pytest.mark.fcbench(model="sim-genius")
def test_unknown_model(fcbench_mock):
    pass


@pytest.mark.fcbench(faults="rate_limt")
def test_unknown_fault(fcbench_mock):
    pass


@pytest.mark.fcbench(temperature=0)
def test_unknown_marker_key(fcbench_mock):
    pass
"""


EXAMPLE_TESTS = (
    "test_looks_up_the_order",
    "test_answers_a_greeting_without_a_call",
    "test_asks_for_the_missing_postal_code",
    "test_a_busy_provider_gives_no_reply",
)
"""The tests of ``examples/pytest-agent/test_agent.py``."""


def run_pytest(folder: Path, *args: str) -> dict[str, str]:
    """Run pytest in ``folder`` (no option of fcbench's own configuration applies there): test name
    -> ``passed``, ``failure: MESSAGE`` or ``error: MESSAGE``, read from its JUnit XML."""
    report = folder / "report.xml"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:xdist",
            "-q",
            f"--junitxml={report}",
            *args,
        ],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    results: dict[str, str] = {}
    for case in ET.parse(report).getroot().iter("testcase"):
        problem = next((child for child in case if child.tag in {"failure", "error"}), None)
        shown = "passed" if problem is None else f"{problem.tag}: {problem.get('message', '')}"
        results[case.get("name", "")] = shown
    return results


@pytest.fixture(scope="module")
def careful_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("careful")
    shutil.copytree(EXAMPLE, folder, dirs_exist_ok=True)
    (folder / "test_markers.py").write_text(MARKER_TESTS, encoding="utf-8")
    return run_pytest(folder, "--fcbench-model", "sim-careful")


@pytest.fixture(scope="module")
def eager_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("eager")
    shutil.copytree(EXAMPLE, folder, dirs_exist_ok=True)
    return run_pytest(folder, "--fcbench-model", "sim-eager")


def test_the_wheel_declares_the_plugin_and_the_installed_package_has_it() -> None:
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert declared["project"]["entry-points"]["pytest11"] == {"fcbench": "fcbench.pytest_plugin"}
    installed = {ep.name: ep.value for ep in entry_points(group="pytest11")}
    assert installed.get("fcbench") == "fcbench.pytest_plugin"


def test_the_example_passes_with_a_careful_model(careful_run: dict[str, str]) -> None:
    assert {name: careful_run.get(name) for name in EXAMPLE_TESTS} == dict.fromkeys(EXAMPLE_TESTS, "passed")


def test_the_example_fails_one_assertion_with_an_eager_model(eager_run: dict[str, str]) -> None:
    failed = {name: shown for name, shown in eager_run.items() if shown != "passed"}
    assert set(eager_run) == set(EXAMPLE_TESTS)
    assert list(failed) == ["test_asks_for_the_missing_postal_code"]
    message = failed["test_asks_for_the_missing_postal_code"]
    assert message.startswith("failure: AssertionError: expected a question for postal_code")
    assert "guessed_missing" in message


def test_markers_choose_the_model_and_the_faults_of_a_test(careful_run: dict[str, str]) -> None:
    assert careful_run["test_module_marker"] == "passed"
    assert careful_run["test_own_marker"] == "passed"


@pytest.mark.parametrize(
    ("test", "said"),
    [
        ("test_unknown_model", "unknown simulated model 'sim-genius'; known: sim-careful, sim-eager"),
        ("test_unknown_fault", "unknown fault 'rate_limt'"),
        ("test_unknown_marker_key", "takes only model= and faults=, got temperature"),
    ],
)
def test_a_bad_marker_is_an_error_saying_why(careful_run: dict[str, str], test: str, said: str) -> None:
    assert careful_run[test].startswith("error:")
    assert said in careful_run[test]
