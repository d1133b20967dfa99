block = bytearray(8 * 1024**3)
from setuptools import setup; setup()
