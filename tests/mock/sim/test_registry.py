"""The simulated-model registry: names, lookup, and independence from the adapters."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import simkit

import fcbench.mock.sim as sim
from fcbench.mock.sim.base import SimReply


def test_model_names_are_sorted_and_complete() -> None:
    names = sim.model_names()
    assert names == sorted(names)
    assert set(simkit.MODELS) <= set(names)


def test_get_model_returns_named_models_and_none_for_unknown() -> None:
    for name in simkit.MODELS:
        model = sim.get_model(name)
        assert model is not None
        assert model.name == name
    assert sim.get_model("sim-nonexistent") is None
    assert sim.get_model("") is None


def test_models_are_stateless_between_requests() -> None:
    for name in simkit.MODELS:
        first = simkit.ask(name, "Quote standard shipping for 750 grams to US postal code 02139.")
        simkit.ask(name, "Hello!")
        again = simkit.ask(name, "Quote standard shipping for 750 grams to US postal code 02139.")
        assert isinstance(first, SimReply)
        assert first == again


def test_package_does_not_import_the_adapters() -> None:
    code = (
        "import sys, fcbench.mock.sim; "
        "print(sorted(m for m in sys.modules if m.startswith('fcbench.adapters')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
    package = Path(sim.__file__).parent
    importing = re.compile(r"^\s*(?:from|import)\s+fcbench\.adapters", re.M)
    for path in package.glob("*.py"):
        assert not importing.search(path.read_text(encoding="utf-8")), path.name
