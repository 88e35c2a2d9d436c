"""A command's output file, written whole or not at all."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO


@contextmanager
def replaced_file(path: Path) -> Iterator[BinaryIO]:
    """A binary file that becomes ``path`` once the block ends without an error: it is written
    beside it as ``NAME.partial`` and renamed, so a failed or interrupted write leaves no half file
    (and an older ``path`` stays as it was)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    try:
        with partial.open("wb") as fh:
            yield fh
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)
