"""The game service: games read, written, moved between stores, and played by mail, over any ruleset."""
