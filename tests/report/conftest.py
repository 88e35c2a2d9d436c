"""Make the shared record-file builder (``tests/report/records_builder.py``) importable."""

from __future__ import annotations

import sys
from pathlib import Path

_BUILDER_DIR = str(Path(__file__).resolve().parents[1] / "report")
if _BUILDER_DIR not in sys.path:
    sys.path.insert(0, _BUILDER_DIR)
