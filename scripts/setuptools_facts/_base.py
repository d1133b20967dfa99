"""Constants, the hand-typed lists, and the error every extractor raises."""

from __future__ import annotations

from pathlib import Path

from packaging.version import Version

MIN_VERSION = Version("38.0.0")
FORMAT = 1
GENERATED_BY = "scripts/gen_setuptools_facts.py"
REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_OUTPUT = REPO_ROOT / "src" / "sapper" / "data" / "setuptools.json"
USER_AGENT = "sapper-dev gen_setuptools_facts"

# ``__all__`` of CPython 3.11's Lib/distutils/command/__init__.py (the last
# CPython with distutils), copied verbatim.  Used as ``distutils.command.__all__``
# for setuptools versions whose wheel has no ``setuptools/_distutils`` (< 48.0.0).
# This is the only hand-typed list in this script.
STDLIB_DISTUTILS_COMMANDS: tuple[str, ...] = (
    "build",
    "build_py",
    "build_ext",
    "build_clib",
    "build_scripts",
    "clean",
    "install",
    "install_lib",
    "install_headers",
    "install_scripts",
    "install_data",
    "sdist",
    "register",
    "bdist",
    "bdist_dumb",
    "bdist_rpm",
    "check",
    "upload",
)

# setuptools < 40.7.0 does not read setup.cfg itself: Distribution.parse_config_files
# calls distutils.dist.Distribution.parse_config_files of the standard library.
# This is that method, copied verbatim from CPython 3.11's Lib/distutils/dist.py
# (identical in 3.6-3.11 apart from whitespace), so the same extractor analyses it.
STDLIB_PARSE_CONFIG_FILES = """
def parse_config_files(self, filenames=None):
    from configparser import ConfigParser

    # Ignore install directory options if we have a venv
    if sys.prefix != sys.base_prefix:
        ignore_options = [
            'install-base', 'install-platbase', 'install-lib',
            'install-platlib', 'install-purelib', 'install-headers',
            'install-scripts', 'install-data', 'prefix', 'exec-prefix',
            'home', 'user', 'root']
    else:
        ignore_options = []

    ignore_options = frozenset(ignore_options)

    if filenames is None:
        filenames = self.find_config_files()

    if DEBUG:
        self.announce("Distribution.parse_config_files():")

    parser = ConfigParser()
    for filename in filenames:
        if DEBUG:
            self.announce("  reading %s" % filename)
        parser.read(filename)
        for section in parser.sections():
            options = parser.options(section)
            opt_dict = self.get_option_dict(section)

            for opt in options:
                if opt != '__name__' and opt not in ignore_options:
                    val = parser.get(section,opt)
                    opt = opt.replace('-', '_')
                    opt_dict[opt] = (filename, val)

        # Make the ConfigParser forget everything (so we retain
        # the original filenames that options come from)
        parser.__init__()
"""

# Modules whose public top-level names are recorded, by wheel path.
NAMES_MODULES: tuple[str, ...] = (
    "setuptools/__init__.py",
    "setuptools/command/easy_install.py",
    "setuptools/command/test.py",
    "pkg_resources/__init__.py",
    "setuptools/dist.py",
    "setuptools/dep_util.py",
    "setuptools/errors.py",
    # setuptools' own distutils (the default since 60.0.0), recorded as ``distutils.*``:
    # the 2to3 helpers (build_py_2to3, run_2to3, ...) are not in it (docutils 0.10)
    "setuptools/_distutils/command/build_py.py",
    "setuptools/_distutils/util.py",
)

DIST_PY = "setuptools/dist.py"


class ExtractionError(Exception):
    """The source does not match any pattern the extractor understands."""
