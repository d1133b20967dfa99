# setup_requires: get_requires_for_build_wheel adds a requirement, so the metadata hook runs
# in a second build environment
from setuptools import setup

setup(setup_requires=["wheel"])
