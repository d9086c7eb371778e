"""Players that play well: bots that decide for one side from what that side may see (issue 28)."""
