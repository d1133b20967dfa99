"""Read the data files shipped in ``sapper/data``, cheaply.

``importlib.resources`` imports ``zipfile``, ``importlib.readers`` and more on first use: more
than a cold ``sapper check`` spends on anything else of its own. A file next to this module is
read directly; only an installation inside a zip archive goes through ``importlib.resources``.
"""

from __future__ import annotations

import os

__all__ = ["read_bytes", "read_text"]

_DATA = os.path.join(os.path.dirname(__file__), "data")  # noqa: PTH118, PTH120  # no pathlib


def read_bytes(name: str) -> bytes:
    """The bytes of ``sapper/data/<name>``."""
    try:
        with open(os.path.join(_DATA, name), "rb") as stream:  # noqa: PTH118, PTH123
            return stream.read()
    except FileNotFoundError:  # sapper is imported from a zip archive
        from importlib import resources

        return resources.files("sapper").joinpath("data", name).read_bytes()


def read_text(name: str) -> str:
    """The text of ``sapper/data/<name>`` (UTF-8)."""
    return read_bytes(name).decode("utf-8")
