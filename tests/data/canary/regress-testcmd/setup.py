from setuptools import setup
from setuptools.command.test import test
setup(cmdclass={"test": test})
