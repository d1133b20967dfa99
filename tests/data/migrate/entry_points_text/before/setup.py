"""Shaped like nltk's setup.py: entry points given as an ini-style string."""
from setuptools import setup

ENTRY_POINTS = """
# the command line
[console_scripts]
eptext = eptext.cli:main
eptext-admin=eptext.cli:admin

[gui_scripts]
eptext-gui = eptext.gui:run

[eptext.plugins]
  basic = eptext.plugins:Basic
"""

setup(
    name="eptext",
    version="0.3.1",
    description="Entry points in a string",
    packages=["eptext"],
    entry_points=ENTRY_POINTS,
)
