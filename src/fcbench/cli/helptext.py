"""Help text drawn from the registries: ``--mode`` lists :data:`fcbench.contract.MODES`, ``--format``
the report formats (:data:`fcbench.report.render.FORMATS`), never a copy of either.

An option's help names a field in braces (``"One of {modes}."``); a command made with
:class:`RegistryHelpCommand` fills every field in when its help is shown, and only then: the
registries live in modules start-up must not import (``tests/cli/test_startup.py``), so each
field is a function that imports its registry when called.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Mapping
from types import MappingProxyType
from typing import Any

from typer.core import TyperCommand


def _names(module: str, registry: str, sep: str) -> Callable[[], str]:
    def names() -> str:
        return sep.join(getattr(importlib.import_module(module), registry))

    return names


def _counted(names: Callable[[], str], noun: str) -> Callable[[], str]:
    def counted() -> str:
        listed = names()
        return f"{listed.count(', ') + 1 if listed else 0} {noun}: {listed}"

    return counted


HELP_FIELDS: Mapping[str, Callable[[], str]] = MappingProxyType(
    {
        "modes": _names("fcbench.contract", "MODES", " | "),
        "report_formats": _names("fcbench.report.render", "FORMATS", ", "),
        "mock_dialects": _counted(_names("fcbench.mock.dialect", "DIALECTS", ", "), "dialects"),
    }
)
"""Field name (written ``{name}`` in a help text) -> the text it stands for, read from its registry."""


def filled(text: str, fields: Mapping[str, Callable[[], str]] = HELP_FIELDS) -> str:
    """``text`` with every ``{name}`` of ``fields`` replaced by its value (other braces left alone)."""
    for name, value in fields.items():
        token = "{" + name + "}"
        if token in text:
            text = text.replace(token, value())
    return text


def fill_help(params: Iterable[Any]) -> None:
    """Fill the fields in the help of every parameter of ``params`` (in place)."""
    for param in params:
        help_text = getattr(param, "help", None)
        if isinstance(help_text, str) and "{" in help_text:
            param.help = filled(help_text)


class RegistryHelpCommand(TyperCommand):
    """A command whose help and options' help fields (:data:`HELP_FIELDS`) are filled in when its
    help is shown (give it a ``short_help`` without fields for its line in its group's list)."""

    def format_help(self, ctx: Any, formatter: Any) -> None:
        """Fill the fields in, then format the help as typer does."""
        fill_help([self, *self.params])
        super().format_help(ctx, formatter)


__all__ = ["HELP_FIELDS", "RegistryHelpCommand", "fill_help", "filled"]
