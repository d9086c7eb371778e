"""The kernel's own data: its rulings register (K1, K2, ...), for acts that belong to no game."""
