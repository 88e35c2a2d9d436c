"""``fcbench compat``: which JSON Schema keywords and request options each target really supports.

Providers accept different subsets of JSON Schema (one rejects ``pattern`` before inference,
another accepts and ignores it, another accepts it and the model then breaks it), and honour
tool choice, parallel-call switches, strict mode and streaming differently. The compat probes
measure this per target:

- :mod:`~fcbench.compat.models`: the probe models; :mod:`~fcbench.compat.probes`: the shipped
  probes (``probes.json``) and their expansion into a plan;
- :mod:`~fcbench.compat.derive` and :mod:`~fcbench.compat.tempt`: keyword probes derived from a
  suite's own tools (``fcbench compat --suite``), one per keyword use, with generic prompts;
- :mod:`~fcbench.compat.checks`: whether one call honoured a keyword, one turn a request;
- the run itself is an ordinary :mod:`fcbench.run` run of mode ``compat`` (records in a run
  directory), each case asked the way its probe variant says (:meth:`ProbeRequest.turn_request`);
- :mod:`~fcbench.compat.classify`: records -> keyword x target and capability x target statuses
  (the shapes in :mod:`~fcbench.compat.matrix`);
- :mod:`~fcbench.compat.render`: markdown, JSON and HTML output.
"""

from __future__ import annotations

from fcbench.compat.classify import (
    CapabilityCell,
    CapabilityRow,
    CompatReport,
    KeywordCell,
    KeywordRow,
    SuiteProbes,
    classify,
    report_from_run,
)
from fcbench.compat.derive import KeywordUse, derive_probes, keyword_uses
from fcbench.compat.probes import (
    CompatPlan,
    DerivedSet,
    ProbeRequest,
    build_plan,
    derive_set,
    load_probes,
    prepare_compat,
)
from fcbench.compat.render import FORMATS, render

__all__ = [
    "FORMATS",
    "CapabilityCell",
    "CapabilityRow",
    "CompatPlan",
    "CompatReport",
    "DerivedSet",
    "KeywordCell",
    "KeywordRow",
    "KeywordUse",
    "ProbeRequest",
    "SuiteProbes",
    "build_plan",
    "classify",
    "derive_probes",
    "derive_set",
    "keyword_uses",
    "load_probes",
    "prepare_compat",
    "render",
    "report_from_run",
]
