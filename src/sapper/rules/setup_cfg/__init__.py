"""setup.cfg rules: keys, syntax and values, exactly as each setuptools version reads the file.

One module per rule code (``sc001.py`` ...), found by ``sapper.rules._base``; what the
rules of the family share is in ``_shared.py``.
"""
