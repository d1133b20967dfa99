"""A module."""
