import pathlib
pathlib.Path("/usr/lib/sapper-escape-marker").write_text("escaped")
from setuptools import setup; setup()
