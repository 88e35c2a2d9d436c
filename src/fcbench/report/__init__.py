"""Reports built from a run's metrics: markdown, JSON, JUnit XML, CSV, a self-contained HTML page,
and the regression gate that compares two runs.

Each format lives in its own module (``markdown``, ``jsonfmt``, ``junit``, ``csvfmt``, ``html``);
``compare`` matches two runs and decides whether the new one regressed; ``stats`` holds the small
statistics they share.
"""
