#!/usr/bin/env python
"""Build script of pylit."""
from setuptools import setup

VERSION = "2.0.1"

setup(
    name="pylit",
    version=VERSION,
    description="Literal values only",
    long_description=open("README.md").read(),
    long_description_content_type="text/markdown",
    author="Pat Lit",
    author_email="pat@example.org",
    maintainer_email="team@example.org",
    url="https://example.org/pylit",
    license="BSD-3-Clause",
    # runtime requirements
    install_requires=[
        "click>=8",  # the CLI
        "colorama; sys_platform == 'win32'",
    ],
    extras_require={"yaml": ["pyyaml>=6"], "all": ["pyyaml>=6", "rich"]},
    packages=["pylit"],
    entry_points={
        "console_scripts": ["pylit=pylit.main:run"],
        "gui_scripts": ["pylit-gui = pylit.main:gui"],
    },
    keywords=["lit", "demo"],
    classifiers=["Programming Language :: Python :: 3"],
    python_requires=">=3.8",
    zip_safe=False,
)
