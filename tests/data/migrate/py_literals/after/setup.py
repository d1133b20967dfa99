#!/usr/bin/env python
"""Build script of pylit."""
from setuptools import setup

VERSION = "2.0.1"

setup(
    author="Pat Lit",
    author_email="pat@example.org",
    url="https://example.org/pylit",
    license="BSD-3-Clause",
)
