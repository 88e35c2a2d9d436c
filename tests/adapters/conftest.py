"""Make the shared adapter test modules (``wire_fixtures.py``, ``openai_samples.py``) importable."""

from __future__ import annotations

import sys
from pathlib import Path

_SHARED_DIR = str(Path(__file__).resolve().parent)
if _SHARED_DIR not in sys.path:
    sys.path.insert(0, _SHARED_DIR)
