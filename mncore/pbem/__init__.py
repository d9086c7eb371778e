"""Play by email, whatever the game: batches, undo, deadlines, signed orders, reports and mail."""
