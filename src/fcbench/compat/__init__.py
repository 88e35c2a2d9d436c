"""``fcbench compat``: which JSON Schema keywords and request options each target really supports.

Providers accept different subsets of JSON Schema (one rejects ``pattern`` before inference,
another accepts and ignores it, another accepts it and the model then breaks it), and honour
tool choice, parallel-call switches, strict mode and streaming differently. The compat probes
measure this per target:

- :mod:`~fcbench.compat.probes`: the probes (``probes.json``) and their expansion into a plan;
- :mod:`~fcbench.compat.checks`: whether one call honoured a keyword, one turn a request;
- the run itself is an ordinary :mod:`fcbench.run` run of mode ``compat`` (records in a run
  directory), each case asked the way its probe variant says (:meth:`ProbeRequest.turn_request`);
- :mod:`~fcbench.compat.classify`: records -> keyword x target and capability x target statuses;
- :mod:`~fcbench.compat.render`: markdown, JSON and HTML output.
"""

from __future__ import annotations

from fcbench.compat.classify import (
    CapabilityCell,
    CapabilityRow,
    CompatReport,
    KeywordCell,
    KeywordRow,
    classify,
    report_from_run,
)
from fcbench.compat.probes import CompatPlan, ProbeRequest, build_plan, load_probes, prepare_compat
from fcbench.compat.render import FORMATS, render

__all__ = [
    "FORMATS",
    "CapabilityCell",
    "CapabilityRow",
    "CompatPlan",
    "CompatReport",
    "KeywordCell",
    "KeywordRow",
    "ProbeRequest",
    "build_plan",
    "classify",
    "load_probes",
    "prepare_compat",
    "render",
    "report_from_run",
]
