"""sapper._data reads the shipped data files as importlib.resources does, without its imports."""

from __future__ import annotations

import subprocess
import sys
from importlib import resources

import pytest

from sapper import _data


@pytest.mark.parametrize("name", ["setuptools.json", "plugins.json", "top-pypi-packages.json"])
def test_read_bytes_matches_importlib_resources(name: str) -> None:
    expected = resources.files("sapper").joinpath("data", name).read_bytes()
    assert _data.read_bytes(name) == expected
    assert _data.read_text(name) == expected.decode("utf-8")


def test_missing_data_file() -> None:
    with pytest.raises(FileNotFoundError):
        _data.read_bytes("no-such-file.json")


def test_catalogue_loads_without_importlib_resources() -> None:
    code = (
        "import sys; from sapper.versions import catalogue; catalogue(); "
        "print('zipfile' in sys.modules, 'importlib.resources' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False", "False"]
