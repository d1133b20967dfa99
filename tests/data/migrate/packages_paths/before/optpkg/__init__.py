"""optpkg."""
