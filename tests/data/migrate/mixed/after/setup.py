import os
import sys

from setuptools import find_packages, setup

requires = ["six"]
if sys.version_info < (3, 8):
    requires.append("importlib-metadata")

setup(
    install_requires=requires,
    data_files=[("share/mixpkg", ["mixpkg.conf"])],
)
