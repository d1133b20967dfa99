"""Layout rules: the project's file tree as setuptools' discovery and license globbing see it.

One module per rule code (``sc001.py`` ...), found by ``sapper.rules._base``; what the
rules of the family share is in ``_shared.py``.
"""
