import os
import sys

from setuptools import find_packages, setup

requires = ["six"]
if sys.version_info < (3, 8):
    requires.append("importlib-metadata")

setup(
    packages=find_packages(exclude=("tests",)),
    install_requires=requires,
    data_files=[("share/mixpkg", ["mixpkg.conf"])],
    package_data={"": ["*.cfg"]},
    include_package_data=False,
    platforms=["any"],
)
