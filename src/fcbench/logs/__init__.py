"""Production logs: logs -> pending cases, and shadow replay.

Each dialect's adapter reads its logged wire requests back into canonical form
(:func:`fcbench.adapters.read_request`), as it reads the responses.

* :mod:`.entries`: JSON Lines log files -> :class:`~fcbench.logs.entries.LogEntry` values (responses
  read by the adapters' own parsers).
* :mod:`.scan`: secrets and obvious personal data in logged text.
* :mod:`.cases`: ``fcbench import logs``: a suite folder of pending cases.
* :mod:`.coverage`: ``fcbench coverage``: the share of logged traffic (intents) a suite's cases cover.
* :mod:`.replay` and :mod:`.render`: ``fcbench replay``: the logged requests sent to a new target
  through the run's kernel, agreement with the logged answers, and its report.
"""
