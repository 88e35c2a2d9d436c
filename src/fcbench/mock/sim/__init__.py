"""Simulated models for the mock provider.

Rule-based stand-ins for real models, each with a recognisable personality (see
:mod:`fcbench.mock.sim.models`). They read only what a real model would see: the system text, the
turns, the offered tool schemas and the tool choice.

>>> from fcbench.mock.sim import get_model, model_names
>>> model_names()
['sim-careful', 'sim-eager', 'sim-flaky', 'sim-sloppy']
"""

from __future__ import annotations

from collections.abc import Callable

from fcbench.mock.sim.base import SimModel
from fcbench.mock.sim.models import Careful, Eager, Flaky, Sloppy

REGISTRY: dict[str, Callable[[], SimModel]] = {
    "sim-careful": Careful,
    "sim-eager": Eager,
    "sim-sloppy": Sloppy,
    "sim-flaky": Flaky,
}
"""Model name -> factory. Each call of a factory returns a fresh, stateless model."""


def get_model(name: str) -> SimModel | None:
    """The simulated model called ``name``, or None when there is no such model."""
    factory = REGISTRY.get(name)
    return factory() if factory is not None else None


def model_names() -> list[str]:
    """Names of every simulated model, sorted."""
    return sorted(REGISTRY)


__all__ = ["REGISTRY", "get_model", "model_names"]
