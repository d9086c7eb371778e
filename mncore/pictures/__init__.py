"""Pictures of a game: the board on the real coastline, what changed, PNG, the HTML page."""
