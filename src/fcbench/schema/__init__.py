"""JSON Schema handling, dialect-free: validation without repair, and recorded transform machinery.

Each dialect's schema rules live in its adapter package (``fcbench.adapters.<dialect>.schema``);
this package never imports ``fcbench.adapters``.
"""
