from setuptools import setup

setup(
    name="onemod",
    version="3.0",
    py_modules=["onemod"],
    author="Solo",
    zip_safe=True,
)
