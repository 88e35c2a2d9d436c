"""``fcbench schema config|suite``: JSON Schemas of ``fcbench.yaml`` and of a one-file suite, for editors.

Both are generated from the pydantic models that read the files (:class:`fcbench.config.RunConfig`;
the one-file suite's parts: :class:`~fcbench.suite.models.SuiteInfo`,
:class:`~fcbench.suite.models.Case`, :class:`~fcbench.suite.models.ClaimRules`, the fakes' and the
tools' models), never written by hand, so an editor checks the keys fcbench checks. A key with an
alias (``timeoutMs``) is offered under both of its names, as the model accepts both.

A YAML file names its schema with a first line that the YAML language server (VS Code, Neovim,
JetBrains...) reads: ``# yaml-language-server: $schema=fcbench.schema.json``; ``fcbench init`` writes
both schemas beside the files it scaffolds and that line at the top of each.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Annotated, Any

import typer

DRAFT = "https://json-schema.org/draft/2020-12/schema"
"""The JSON Schema dialect of every generated schema."""

SCHEMA_FILES: Mapping[str, str] = MappingProxyType(
    {"config": "fcbench.schema.json", "suite": "suite.schema.json"}
)
"""Schema name -> the file ``fcbench init`` writes it to."""


def both_names(by_alias: dict[str, Any], by_name: dict[str, Any]) -> dict[str, Any]:
    """The properties of each object schema of ``by_alias`` joined with those of ``by_name`` (the
    same schema generated with field names), so a field is offered under its alias and its name."""
    merged = dict(by_alias)
    if isinstance(by_alias.get("properties"), dict) and isinstance(by_name.get("properties"), dict):
        merged["properties"] = {**by_name["properties"], **by_alias["properties"]}
    defs_alias, defs_name = by_alias.get("$defs"), by_name.get("$defs")
    if isinstance(defs_alias, dict) and isinstance(defs_name, dict):
        merged["$defs"] = {
            key: both_names(value, defs_name.get(key, {})) for key, value in defs_alias.items()
        }
    return merged


def config_schema() -> dict[str, Any]:
    """The JSON Schema of a run configuration (``fcbench.yaml``)."""
    from fcbench.config import RunConfig

    schema = both_names(RunConfig.model_json_schema(), RunConfig.model_json_schema(by_alias=False))
    return {"$schema": DRAFT, **schema, "title": "fcbench run configuration"}


def suite_schema() -> dict[str, Any]:
    """The JSON Schema of a one-file suite (``suite.yaml``): the top keys its loader knows
    (:data:`fcbench.suite.onefile.TOP_KEYS`), each part by the model its loader checks it with."""
    from pydantic import BaseModel
    from pydantic.json_schema import models_json_schema

    from fcbench.contract import Tool
    from fcbench.suite.fakes import FakeScripts
    from fcbench.suite.models import Case, ClaimRules, SuiteInfo

    models: list[type[BaseModel]] = [SuiteInfo, Case, ClaimRules, FakeScripts, Tool]
    refs, found = models_json_schema(
        [(model, "validation") for model in models], ref_template="#/$defs/{model}"
    )
    ref = {model.__name__: refs[(model, "validation")] for model in models}
    info = found["$defs"][SuiteInfo.__name__]
    tool_list = {"type": "array", "items": {"anyOf": [ref["Tool"], {"type": "object"}]}}
    properties: dict[str, Any] = {
        **info["properties"],
        "system": {"type": "string", "description": "The system prompt (absent or empty: none is sent)."},
        "tools": {
            "description": "A tool list (tool set core) or {set name: tool list}; canonical tools, or a "
            "list pasted from OpenAI, Anthropic, Gemini or MCP as is.",
            "anyOf": [tool_list, {"type": "object", "additionalProperties": tool_list}, {"type": "object"}],
        },
        "cases": {"type": "array", "minItems": 1, "items": ref["Case"]},
        "fakes": ref["FakeScripts"],
        "claims": ref["ClaimRules"],
    }
    required = [key for key in info.get("required", []) if key != "name"] + ["cases"]
    return {
        "$schema": DRAFT,
        "title": "fcbench one-file suite",
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
        "$defs": found["$defs"],
    }


SCHEMAS: Mapping[str, Callable[[], dict[str, Any]]] = MappingProxyType(
    {"config": config_schema, "suite": suite_schema}
)
"""Schema name -> the function generating it."""


def schema_text(name: str) -> str:
    """The schema ``name`` as indented JSON text (ending in a newline)."""
    return json.dumps(SCHEMAS[name](), indent=2, ensure_ascii=False) + "\n"


def schema_names(incomplete: str) -> list[str]:
    """Shell completion of a schema's name."""
    return [name for name in SCHEMAS if name.startswith(incomplete)]


def schema_command(
    name: Annotated[
        str,
        typer.Argument(
            help="config (fcbench.yaml) or suite (a one-file suite.yaml).", autocompletion=schema_names
        ),
    ],
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write the schema to this file instead of stdout.")
    ] = None,
) -> None:
    """Print the JSON Schema of fcbench.yaml (config) or of a one-file suite (suite), for editors.

    Examples: fcbench schema config; fcbench schema suite -o suite.schema.json
    """
    from fcbench.errors import ConfigError
    from fcbench.files import write_replacing
    from fcbench.suggest import unknown_name

    if name not in SCHEMAS:
        raise ConfigError(unknown_name("schema", name, SCHEMAS), key="NAME")
    text = schema_text(name)
    if output is None:
        typer.echo(text, nl=False)
    else:
        write_replacing(output, text)


def register(app: typer.Typer) -> None:
    """Add ``schema`` to the app."""
    app.command("schema")(schema_command)
