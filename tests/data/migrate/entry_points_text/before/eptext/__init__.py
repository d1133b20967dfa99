"""eptext."""
