"""Runs over time: the history of each named target, and the failure-mode catalogue per model.

* :func:`build_history` (:mod:`fcbench.history.series`): one point per run for each target name
  and mode, with the pass rate, the failure types' shares, coverage loss and model changes.
* :func:`update_catalogue` (:mod:`fcbench.history.catalogue`): ``RUNS_ROOT/catalogue.json``, the
  failure patterns (:mod:`fcbench.history.patterns`) each model showed, counted once per run,
  with the titles and notes people add to it.
* :func:`known_patterns` (:mod:`fcbench.history.known`): the catalogue patterns one run shows.
"""

from __future__ import annotations

from fcbench.history.catalogue import (
    CATALOGUE_FILE,
    Catalogue,
    Pattern,
    UpdateSummary,
    catalogue_path,
    load_catalogue,
    update_catalogue,
)
from fcbench.history.known import KnownPattern, KnownPatterns, known_patterns
from fcbench.history.series import History, Point, Series, build_history

__all__ = [
    "CATALOGUE_FILE",
    "Catalogue",
    "History",
    "KnownPattern",
    "KnownPatterns",
    "Pattern",
    "Point",
    "Series",
    "UpdateSummary",
    "build_history",
    "catalogue_path",
    "known_patterns",
    "load_catalogue",
    "update_catalogue",
]
