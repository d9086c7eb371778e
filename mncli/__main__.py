"""`python -m mncli` runs the `mn` command."""

from mncli.cli import main

main(prog_name="mn")
