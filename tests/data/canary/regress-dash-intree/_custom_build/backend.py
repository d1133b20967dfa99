"""An in-tree backend wrapping setuptools' own (as pandas' `_custom_build` once did)."""

from setuptools import build_meta as _orig
from setuptools.build_meta import *  # noqa: F403


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    return _orig.prepare_metadata_for_build_wheel(metadata_directory, config_settings)
