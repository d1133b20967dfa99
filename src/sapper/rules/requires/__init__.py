"""Build-requirement rules: setuptools plugins pinned in the build requirements.

One module per rule code (``sc001.py`` ...), found by ``sapper.rules._base``; what the
rules of the family share is in ``_shared.py``.
"""
