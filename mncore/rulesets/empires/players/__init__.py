"""The Empires scripted players: the demonstration game, the sampler and the bots' tactics."""
