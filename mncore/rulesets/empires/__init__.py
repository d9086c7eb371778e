"""Mare Nostrum: Empires (2016), the first ruleset on the kernel."""
