#!/usr/bin/env python
import pkg_resources  # the version of the build's setuptools
from setuptools import setup
from setuptools.command.test import test as TestCommand

SETUPTOOLS = pkg_resources.get_distribution("setuptools").version

setup(
    name="legacy",
    version="3.0",
    py_modules=["legacy"],
    description="Old-style setup.py",
    use_2to3=False,  # Python 3 only now
    cmdclass={"test": TestCommand},
    keywords=["built"] if SETUPTOOLS else [],
)
