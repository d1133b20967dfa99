"""pyproject.toml rules: ``[project]`` and ``[tool.setuptools]`` as each setuptools reads them.

One module per rule code (``sc001.py`` ...), found by ``sapper.rules._base``; what the
rules of the family share is in ``_shared.py``.
"""
