"""Renderers: text for humans, JSON for machines."""
