"""``sapper migrate``: move a setuptools project's configuration to ``pyproject.toml``."""
