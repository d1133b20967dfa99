from setuptools import setup

extras = {"fast": ["orjson"]}

params = dict(
    name="dictpkg",
    version="0.2.0",
    # requirements in a dict that setup() expands
    install_requires=["six"],
    extras_require=extras,
    packages=["dictpkg"],
)
params["zip_safe"] = False

if __name__ == "__main__":
    setup(**params)
