"""A generated table of setup.cfg files that probe how setuptools reads keys and syntax.

Values are chosen so that nothing but key handling and INI parsing can fail: unknown keys
in [metadata] and [options] are ignored by setuptools, command sections are only stored.
"""

from __future__ import annotations

SECTIONS = (
    "metadata",
    "options",
    "options.extras_require",
    "options.entry_points",
    "options.package_data",
    "options.exclude_package_data",
    "options.data_files",
    "options.packages.find",
    "options_extra",
    "optional",
    "option",
    "bdist_wheel",
    "egg_info",
    "sdist",
    "build_ext",
    "build_py",
    "install",
    "develop",
    "bdist_rpm",
    "easy_install",
    "upload_docs",
    "test",
    "alias",
    "aliases",
    "install_requires",
    "PKG-INFO",
    "flake8",
    "tool:pytest",
    "pbr",
    "files",
    "build_sphinx",
    "wheel",
    "Metadata",
)

KEYS = (
    "foo-bar",
    "Foo",
    "FOO_BAR",
    "foo_bar",
    "x1",
    "123",
    "Foo-Bar",
    "_",
    "é-x",
    "ÉTÉ",
    "install-lib",
)


def _ident(text: str) -> str:
    """A file-name-safe, collision-free spelling (``foo-bar`` and ``foo_bar`` differ)."""
    return "".join(c if c.isascii() and c.isalnum() else f"~{ord(c):x}" for c in text)


def key_cases() -> list[tuple[str, bytes]]:
    cases = []
    for section in SECTIONS:
        for key in KEYS:
            text = f"[{section}]\n{key} = \n"
            if section != "metadata":
                text = "[metadata]\nname = probe\n\n" + text
            cases.append((f"key-{_ident(section)}-{_ident(key)}", text.encode()))
    return cases


REAL_KEYS = (
    ("metadata-author-email", "[metadata]\nname = probe\nauthor-email = a@example.org\n"),
    ("metadata-description-file", "[metadata]\nname = probe\ndescription-file = README.rst\n"),
    ("metadata-home-page", "[metadata]\nname = probe\nhome-page = https://example.org\n"),
    ("metadata-Name", "[metadata]\nName = probe\nVersion = 1.0\n"),
    ("metadata-Summary", "[metadata]\nname = probe\nSummary = A probe\n"),
    (
        "options-install-requires",
        "[metadata]\nname = probe\n[options]\ninstall-requires =\n    six\n",
    ),
    ("options-Zip_Safe", "[metadata]\nname = probe\n[options]\nZip_Safe = False\n"),
    ("options-python-requires", "[metadata]\nname = probe\n[options]\npython-requires = >=3.7\n"),
    ("bdist_wheel-universal", "[metadata]\nname = probe\n[bdist_wheel]\nuniversal = 1\n"),
    ("bdist_wheel-python-tag", "[metadata]\nname = probe\n[bdist_wheel]\npython-tag = py3\n"),
    (
        "extras-dev-tools",
        "[metadata]\nname = probe\n[options.extras_require]\ndev-tools =\n    six\n",
    ),
    (
        "entry-points-dash-group",
        "[metadata]\nname = probe\n[options.entry_points]\nconsole-scripts =\n    x = os:getcwd\n",
    ),
    ("flake8", "[metadata]\nname = probe\n[flake8]\nmax-line-length = 100\n"),
    ("default-dash", "[DEFAULT]\nfoo-bar = 1\n\n[metadata]\nname = probe\n"),
    ("default-only", "[DEFAULT]\nfoo-bar = 1\n"),
    ("clean", "[metadata]\nname = probe\nversion = 1.0\n\n[options]\nzip_safe = False\n"),
    ("empty", ""),
    ("comment-only", "# nothing\n; here\n"),
    ("crlf-dash", "[metadata]\r\nname = probe\r\nauthor-email = a@example.org\r\n"),
    ("continuation-dash", "[metadata]\nname = probe\nkeywords =\n    a-b = c\n    d\n"),
    ("colon-separator", "[metadata]\nname: probe\nauthor-email: a@example.org\n"),
)

SYNTAX = (
    ("dup-section", "[metadata]\nname = probe\n\n[metadata]\nversion = 1.0\n"),
    ("dup-option", "[metadata]\nname = probe\nname = other\n"),
    ("dup-option-case", "[metadata]\nname = probe\nName = other\n"),
    ("dup-option-dash", "[metadata]\nname = probe\nauthor-email = a\nauthor_email = b\n"),
    ("dup-section-flake8", "[flake8]\nx = 1\n[flake8]\ny = 2\n"),
    ("missing-header", "name = probe\n[metadata]\nversion = 1.0\n"),
    ("parse-error", "[metadata]\nname = probe\nversion\n"),
    (
        "interp-missing",
        "[metadata]\nname = probe\n[tool:pytest]\nlog_format = %(asctime)s %(message)s\n",
    ),
    ("interp-syntax", "[metadata]\nname = probe\ndescription = 100% probe\n"),
    ("interp-escaped", "[metadata]\nname = probe\ndescription = 100%% probe\n"),
    ("interp-ok", "[metadata]\nname = probe\n[x]\na = 1\nb = %(a)s\n"),
    ("interp-case", "[metadata]\nname = probe\n[x]\nA = 1\nb = %(A)s\n"),
    ("interp-default", "[DEFAULT]\nroot = /x\n[metadata]\nname = probe\n[x]\nb = %(root)s/y\n"),
    ("interp-ignored-venv", "[metadata]\nname = probe\n[install]\ninstall-lib = %(nope)s\n"),
    ("bom", "\ufeff[metadata]\nname = probe\n"),
    ("header-with-comment", "[metadata] # hi\nname = probe\n"),
    ("empty-key", "[metadata]\nname = probe\n = value\n"),
    ("section-options-extras", "[metadata]\nname = probe\n[options.extras]\ntest = six\n"),
    ("section-metadata-sub", "[metadata]\nname = probe\n[metadata.extra]\nx = 1\n"),
    ("section-split-rule", "[metadata]\nname = probe\n[options.extras_require.options]\nx =\n"),
    (
        "section-double-underscore",
        "[metadata]\nname = probe\n[options.packages__find]\nwhere = .\n",
    ),
    ("section-empty-options-sub", "[metadata]\nname = probe\n[options.nothing]\n"),
)

BINARY = (
    ("latin1", b"[metadata]\nname = probe\nauthor = Jos\xe9\n"),
    ("latin1-comment", b"[metadata]\nname = probe\n# caf\xe9\n"),
    ("utf16", "[metadata]\nname = probe\n".encode("utf-16")),
)


def all_cases() -> list[tuple[str, bytes]]:
    cases = key_cases()
    cases += [(n, t.encode()) for n, t in REAL_KEYS]
    cases += [(n, t.encode()) for n, t in SYNTAX]
    cases += list(BINARY)
    return cases
