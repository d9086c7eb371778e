"""The kernel's core, which knows no game: the protocol, the envelope of its own acts, chain, dice, refusals."""
