"""The ``fcbench`` command line (typer + rich): one module per verb."""
