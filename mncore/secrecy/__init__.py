"""What each side may see: the one redaction boundary and the values it alone makes."""
