from setuptools import Extension, setup

# the accelerator stays here: only code can say it
speedups = Extension("cext._speedups", sources=["cext/_speedups.c"])

setup(
    ext_modules=[speedups],
)
