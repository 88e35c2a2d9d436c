"""``python -m fcbench``."""

from fcbench.cli.app import main

main()
