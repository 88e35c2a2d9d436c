"""Published formats document every field: records, manifest, verdicts and metrics.

The models use ``use_attribute_docstrings``, so each field's docstring is its JSON-schema
description; a field without one fails here.
"""

from __future__ import annotations

import pydantic
import pytest

from fcbench.grading import verdict
from fcbench.metrics import models as metrics_models
from fcbench.store import records

PUBLISHED = [records, verdict, metrics_models]


def published_models() -> list[type[pydantic.BaseModel]]:
    found = []
    for module in PUBLISHED:
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and issubclass(value, pydantic.BaseModel)
                and value.__module__ == module.__name__
                and not value.__name__.startswith("_")
            ):
                found.append(value)
    return found


def test_the_published_models_are_found() -> None:
    names = {model.__name__ for model in published_models()}
    assert {"Record", "Manifest", "RecordedTurn", "Verdict", "RecoveryVerdict", "TargetMetrics"} <= names


@pytest.mark.parametrize("model", published_models(), ids=lambda m: m.__name__)
def test_every_field_has_a_docstring(model: type[pydantic.BaseModel]) -> None:
    undocumented = [name for name, info in model.model_fields.items() if not (info.description or "").strip()]
    assert not undocumented, f"{model.__name__}: fields without a docstring: {undocumented}"
