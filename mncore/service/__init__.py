"""mn serve: the game service that runs itself (config, mail transport, outbox, policy, the loop)."""
