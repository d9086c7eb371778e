"""Mare Nostrum (2003) with the Mythology expansion: the second game on the kernel's protocol."""
