from setuptools import setup

setup(
    py_modules=["reqs"],
    install_requires=["idna>=2.5", "certifi"],
    extras_require={"socks": ["PySocks>=1.5.6"]},
)
