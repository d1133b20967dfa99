from setuptools import setup

extras = {"fast": ["orjson"]}

params = dict()
params["zip_safe"] = False

if __name__ == "__main__":
    setup(**params)
