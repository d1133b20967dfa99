from setuptools import setup

import verpkg

setup(
    name="verpkg",
    version=verpkg.__version__,
    # Python 2 style bounds, written as setuptools normalises them
    python_requires=">=2.7, !=3.0.*",
    packages=["verpkg"],
)
