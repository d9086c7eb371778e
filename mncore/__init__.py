"""mncore: the Mare Nostrum: Empires rules engine (events, state, rules, store)."""

__version__ = "0.1.0"
