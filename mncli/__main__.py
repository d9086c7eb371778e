"""`python -m mncli` runs the `mn` command."""

from mncli.start import main

main(prog_name="mn")
