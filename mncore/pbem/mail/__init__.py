"""Play by email: the host's address book, signed blocks read from mail, answers and reports sent out."""
