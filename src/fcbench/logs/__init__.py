"""Production logs: request readers per dialect, logs -> pending cases, and shadow replay.

* :mod:`.requests`: logged wire requests -> canonical system, messages and tools (one reader per
  dialect, :data:`~fcbench.logs.requests.READERS`).
* :mod:`.entries`: JSON Lines log files -> :class:`~fcbench.logs.entries.LogEntry` values (responses
  read by the adapters' own parsers).
* :mod:`.scan`: secrets and obvious personal data in logged text.
* :mod:`.cases`: ``fcbench import logs``: a suite folder of pending cases.
* :mod:`.replay` and :mod:`.render`: ``fcbench replay``: the logged requests sent to a new target
  through the run's kernel, agreement with the logged answers, and its report.
"""
