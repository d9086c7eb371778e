"""The player's side of play by email: their own export opened as a game, orders checked before signing."""
