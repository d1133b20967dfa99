import pkg_resources
from setuptools import setup; setup()
