"""Shipped only when OPTPKG_EXPERIMENTAL is set."""
