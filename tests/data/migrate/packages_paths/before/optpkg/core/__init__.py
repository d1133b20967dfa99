"""Always shipped."""
