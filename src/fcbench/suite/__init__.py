"""Suites: case models, the loader with file:line errors, and the built-in suites."""
