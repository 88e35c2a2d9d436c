"""``fcbench view``: a local web viewer of run directories.

The list of runs below a folder, each run's report page (the page of the static HTML report, fed by
JSON endpoints instead of embedded data), paged observation queries with the page's filters and
search answered by streaming ``records.jsonl``, raw exchanges read from the blob store one
observation at a time, and run versus run. Served by uvicorn on 127.0.0.1 (:mod:`fcbench.view.serve`).
"""

from __future__ import annotations

from fcbench.view.app import create_app
from fcbench.view.runs import RunCatalog, find_runs

__all__ = ["RunCatalog", "create_app", "find_runs"]
