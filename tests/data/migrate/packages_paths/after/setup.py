"""Shaped like lz4's setup.py: the package list depends on an environment variable, and
the default path leaves one subpackage out."""
import os

from setuptools import find_packages, setup

if os.environ.get("OPTPKG_EXPERIMENTAL", "").upper() in ("1", "TRUE"):
    packages = find_packages()
else:
    packages = find_packages(exclude=("optpkg.extra",))

setup(
    packages=packages,
)
