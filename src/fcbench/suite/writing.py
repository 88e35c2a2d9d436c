"""Writing a suite folder (imports write suites: BFCL, production logs)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fcbench.errors import InputError


def prepare_suite_folder(out: Path, force: bool) -> None:
    """Make ``out`` ready to receive a suite: a new or empty folder, or any folder with ``force``."""
    if out.exists() and not out.is_dir():
        raise InputError("exists and is not a folder", path=str(out))
    if out.is_dir() and any(out.iterdir()) and not force:
        raise InputError("folder is not empty (pass --force to overwrite an earlier import)", path=str(out))
    out.mkdir(parents=True, exist_ok=True)


def write_json(path: Path, data: Any) -> None:
    """Write ``data`` as indented UTF-8 JSON with a final newline."""
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


__all__ = ["prepare_suite_folder", "write_json"]
