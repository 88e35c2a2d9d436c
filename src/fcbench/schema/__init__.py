"""JSON Schema handling: validation without repair, and recorded per-dialect transforms."""
