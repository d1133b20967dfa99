from setuptools import setup  # sapper: ignore[SP002]

setup(
    name="x",
    use_2to3=True,  # sapper: ignore[SP002, SC001, XX9]
    # sapper: ignore[SAP100, SP001]
    version="1",
)
