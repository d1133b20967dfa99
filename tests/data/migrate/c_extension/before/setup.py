from setuptools import Extension, setup

# the accelerator stays here: only code can say it
speedups = Extension("cext._speedups", sources=["cext/_speedups.c"])

setup(
    name="cext",
    version="0.9.0",
    description="A C extension",
    packages=["cext"],
    ext_modules=[speedups],
)
