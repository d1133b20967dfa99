"""The setup.cfg ``[metadata]`` keys setuptools reads, and what to write instead of the others.

One source for ``sapper check --show-fix`` (the SC001/SC002 advice) and ``sapper fix``
(the edits), so that the two never suggest different keys.
"""

from __future__ import annotations

from pathlib import PurePosixPath

__all__ = ["CONTENT_TYPES", "METADATA_KEYS", "METADATA_RENAMES", "content_type"]

#: What setuptools' ConfigMetadataHandler reads from [metadata] (setuptools/config/setupcfg.py).
#: ``license_file`` is left out on purpose: it is deprecated since 56.0.0 (#2620, "Use
#: ``license_files`` instead"), 69.0.0 (#4066) dropped its parsing from the changelog's point of
#: view, and ``license_files`` reads the same pattern in every release since 42.0.0.
METADATA_KEYS = frozenset(
    {
        "name", "version", "url", "download_url", "project_urls", "author", "author_email",
        "maintainer", "maintainer_email", "classifiers", "license", "license_files",
        "license_expression", "description", "long_description",
        "long_description_content_type", "keywords", "platforms", "provides", "requires",
        "obsoletes",
    }
)  # fmt: skip

#: Names setuptools itself maps to another [metadata] key, the deprecated ``license_file``, and
#: pbr/distutils2 spellings with a setuptools equivalent that means the same.
METADATA_RENAMES = {
    "home_page": "url",
    "summary": "description",
    "classifier": "classifiers",
    "platform": "platforms",
    "license_file": "license_files",
    "description_content_type": "long_description_content_type",
}

CONTENT_TYPES = {".rst": "text/x-rst", ".md": "text/markdown", ".markdown": "text/markdown"}


def content_type(filename: str) -> str:
    """The ``long_description_content_type`` for a README file name."""
    return CONTENT_TYPES.get(PurePosixPath(filename.strip()).suffix.lower(), "text/plain")
