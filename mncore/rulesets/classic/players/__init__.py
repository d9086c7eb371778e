"""The 2003 game's scripted players: the demonstration game and the bots' tactics."""
