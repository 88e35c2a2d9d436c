"""Berkeley Function Calling Leaderboard (BFCL) support.

* :mod:`fcbench.bfcl.convert` imports a BFCL category file as an fcbench suite folder
  (``fcbench import bfcl``), with :mod:`~fcbench.bfcl.schema` (types and names),
  :mod:`~fcbench.bfcl.answers` (possible answers to assertions) and :mod:`~fcbench.bfcl.entries`.
* :mod:`fcbench.grading.bfcl_rules` holds BFCL's argument rules, used by the ``bfcl`` grading profile
  (:mod:`fcbench.grading.bfcl`) so pass rates are comparable with BFCL's own AST checker.

Submodules are imported explicitly; this package imports nothing on its own.
"""
