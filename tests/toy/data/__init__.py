"""The toy game's data: its board, rules index and rulings register."""
