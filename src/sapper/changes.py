"""One home for setuptools' changes: every entry of the breaking-change history (ST01...).

Each entry says what changed, which sapper rules cover it (or why none can), and, for the
entries the rules cite, the releases that fail (``fails``: ``[first, stop)`` ranges, an open
end is None), the releases that warn, the due dates of the warning per era, the references
and the error real setuptools raises (exception type names and a message pattern). Rules
take their version bounds from here instead of typing them; ``docs/catalogue.md`` is
generated from this table (``scripts/gen_catalogue.py``) and the oracle boundary tests
(``tests/oracle/test_boundaries.py``) build every cited entry's rule example with the real
releases on both sides of each bound.

Source: ``setuptools-breaking-changes.md`` (setuptools' changelog, its source, and probe
builds), with the rules' own oracle tests.
"""

from __future__ import annotations

from ._change import HISTORY_URL, Change, Expected, history_ref

__all__ = ["CHANGES", "HISTORY_URL", "Change", "Expected", "change", "history_ref"]

_ref = history_ref  # the short name the table below uses


CHANGES: tuple[Change, ...] = (
    Change(
        id="ST01",
        what="`install_requires`/`setup_requires` as a set or dict",
        covered="SP004 (oracle)",
        notes="set fails in every release; dict fails before 75.3.0",
        fails=((None, "75.3.0"),),
    ),
    Change(
        id="ST02",
        what="Cython `new_build_ext` in 38.5.0 only",
        covered="not a rule",
        notes="needs Cython in the build environment and a one-release pin to 38.5.0; no build today gets it. A real build with `setuptools==38.5.0` catches it",
    ),
    Change(
        id="ST03",
        what="iterating `parse_version()` results; `SetuptoolsVersion`",
        covered="SP003 for the names",
        notes="iteration over a version object is only visible at run time (the value's type is not known statically)",
    ),
    Change(
        id="ST04",
        what="`license = file:` in setup.cfg",
        covered="SC008 (oracle)",
        fails=(("40.7.0", None),),
        references=(_ref("40.7.0", "file: rejected for license (#1551)"),),
        error=Expected(
            type="ValueError|DistutilsOptionError|InvalidConfigError",
            message=r"Only strings are accepted for the license field, files are not accepted",
        ),
    ),
    Change(
        id="ST05",
        what="setup.cfg not UTF-8",
        covered="SC003 (oracle)",
        notes="40.7.0–40.9.0 decode it with the codec a `coding:` comment on its first line names, and stop with LookupError when that is no text codec (`bogus`, `hex`)",
    ),
    Change(
        id="ST06",
        what="`upload`/`register`/`distutils.config` imports",
        covered="SP001 (module inventory)",
    ),
    Change(
        id="ST07",
        what="`setup_requires` fetching",
        covered="not a rule",
        notes="under PEP 517 the frontend installs them; only `setup.py` invocations fetch eggs. An unsatisfiable pin is found by resolving it (a real build)",
    ),
    Change(
        id="ST08",
        what="pyproject.toml without `[build-system]` switching to isolated builds",
        covered="PP009 (oracle)",
        notes="an unguarded top-level import of a third-party module in setup.py next to a pyproject.toml without `[build-system]`, a `[build-system]` table without `requires` (pip, uv and build refuse it), and an empty `requires` with setuptools' backend or none (no setuptools in the isolated environment); projects without any pyproject.toml depend on the pip version and are not reported",
    ),
    Change(
        id="ST09",
        what="Python floors of setuptools",
        covered="release facts",
        notes="`--python X.Y` caps the setuptools a build would get (3.8 → 75.3.4, 3.9 → 82.0.1, ...)",
    ),
    Change(
        id="ST10", what="`Feature`", covered="SP003 (oracle)", notes="`features=` alone only warns"
    ),
    Change(
        id="ST11",
        what="`use_2to3`",
        covered="SP002 (oracle)",
        fails=(("58.0.2", None),),
        # distutils' setup() turns the DistutilsSetupError into SystemExit.
        error=Expected(type="SystemExit", message=r"use_2to3 is invalid"),
    ),
    Change(id="ST12", what="`bdist_wininst`/`bdist_msi` imports", covered="SP001"),
    Change(
        id="ST13",
        what="distutils adoption (numpy.distutils, monkeypatching stdlib distutils)",
        covered="not a rule",
        notes="the breakage is in numpy.distutils and in what the patched internals did; `SETUPTOOLS_USE_DISTUTILS=stdlib` and a real build decide",
    ),
    Change(
        id="ST14",
        what="top-level `easy_install` module",
        covered="not a rule",
        notes="used by running the `easy_install` script, not by importing it from setup.py",
    ),
    Change(
        id="ST15",
        what="newline in the summary",
        covered="SP007, SC012 (oracle)",
        notes="fails in 51.3.0–51.3.2 and 59.0.1–59.3.0",
        fails=(("51.3.0", "51.3.3"), ("59.0.0", "59.4.0")),
        references=(_ref("59.4.0", "newlines in Summary tolerated (#2893)"),),
        error=Expected(
            # 51.3.0-51.3.1: "newlines not allowed"; 51.3.2 trips over its own warning
            # (AttributeError: module 'warnings' has no attribute 'UserWarning'); 59.0.1-59.3.0:
            # "Newlines are not allowed".
            type="ValueError|AttributeError",
            message=r"(?i)newlines (are )?not allowed|no attribute 'UserWarning'",
        ),
    ),
    Change(
        id="ST16",
        what="case-sensitive setup.cfg keys",
        covered="SC002",
        notes="output change (entry-point name case) is not a failure",
    ),
    Change(
        id="ST17",
        what="dash and uppercase setup.cfg keys",
        covered="SC001, SC002 (oracle, 8 versions × enforce)",
    ),
    Change(
        id="ST18",
        what="`license_file` and auto-included licenses",
        covered="not a rule",
        notes="output only; 84.2.1 still accepts `license_file`. `sapper fix` renames it to `license_files`",
    ),
    Change(
        id="ST19",
        what="`[metadata] requires`",
        covered="not a rule",
        notes="silently corrupt `Requires:` metadata from 69.0.0, no failure; no build breaks",
    ),
    Change(
        id="ST20",
        what="`build_py` from distutils with `include_package_data`",
        covered="SP010 (oracle)",
        notes="58.5.0–58.5.2",
        fails=(("58.5.0", "58.5.3"),),
        error=Expected(type="AttributeError", message=r"get_data_files_without_manifest"),
    ),
    Change(
        id="ST21",
        what="non-PEP 440 version",
        covered="SP005, SC011 (oracle)",
        notes="values computed at run time (git, dates) are out of reach; `version = file:` is not checked",
        fails=(("66.0.0", None),),
        references=(_ref("66.0.0", "non-PEP 440 versions removed (#2497)"),),
        error=Expected(type="InvalidVersion", message=r"Invalid version"),
    ),
    Change(
        id="ST22",
        what="flat-layout auto-discovery",
        covered="LY001 (oracle)",
        notes="each release's reserved names; pbr projects, src layouts, explicit packages and `ext_modules` excepted",
    ),
    Change(
        id="ST23",
        what="pyproject validation",
        covered="PP001, PP007 (oracle)",
        notes="each release's own vendored validator (`_validate_pyproject`, read from its "
        "wheel and cached by `sapper cache warm`; 17 distinct ones for 61.0.0-84.2.1) judges "
        "[project] and [tool.setuptools]; where it is not cached, PP001/PP007's own bounds "
        "(the names the schema rejects until a later release are ST73-ST75)",
    ),
    Change(
        id="ST24",
        what="`include_package_data` default with `[project]`",
        covered="not a rule",
        notes="output only (which data files the wheel holds)",
    ),
    Change(
        id="ST25",
        what="`namespace_packages`",
        covered="PP005 (pyproject key, 69.0.0; oracle)",
        notes="setup.py/setup.cfg `namespace_packages` only warns (no due date); 62.3.0's crash was not reproduced at the metadata stage",
        fails=(("69.0.0", None),),
        warns=(("62.3.0", "69.0.0"),),
        due=(("67.7.0", "2023-10-30"),),
        until="69.0.0",
    ),
    Change(
        id="ST26",
        what="sub-packages included as data",
        covered="not a rule",
        notes="warning only, no due date",
    ),
    Change(
        id="ST27",
        what="editable installs",
        covered="not a rule",
        notes="editable installs of source trees, not sdist builds",
    ),
    Change(
        id="ST28",
        what="`--global-option` config settings",
        covered="not a rule",
        notes="a frontend invocation, not sdist content",
    ),
    Change(
        id="ST29",
        what="`distutils.msvccompiler`",
        covered="SP001",
        notes="removed in 65.0.0–65.0.1 and from 74.0.0",
    ),
    Change(
        id="ST30",
        what="strict requirement parsing",
        covered="SP006, SC010 (oracle)",
        notes="install/extras/setup requirements fail in every release today because pip's newest `wheel` parses them strictly before setuptools 70.1; `python_requires` from 67.0.0",
        fails=(("67.0.0", None),),
        references=(_ref("67.0.0", "strict requirement parsing (#3790)"),),
    ),
    Change(id="ST31", what="`get_script_args` and friends", covered="SP003 (oracle)"),
    Change(
        id="ST32",
        what="`_get_unpatched`, `get_pkg_info_revision`",
        covered="SP003 where the module is in the name inventory",
    ),
    Change(id="ST33", what="`setuptools.dep_util`", covered="SP001, SP003"),
    Change(
        id="ST34",
        what="setup.py metadata not in `project.dynamic`",
        covered="PP008 (oracle)",
        notes="mostly silent from 69.0.0 (the field is dropped); `long_description` and `python_requires` crash the build from 69.0.0, `license` in 69.0.0–76.1.0; overdue warning 67.7.0–68.2.2",
        # 61.2.0 (#3218) keeps the value with a warning; 67.7.0 gives it a due date;
        # 69.0.0 (#4066) enforces PEP 621 (MISSING_DYNAMIC_EFFECTS, field by field).
        warns=(("61.2.0", None),),
        due=(("67.7.0", "2023-10-30"),),
        until="69.0.0",
    ),
    Change(
        id="ST35",
        what="sdist/wheel name normalisation",
        covered="not a rule",
        notes="output (file names) only",
    ),
    Change(
        id="ST36",
        what="`setuptools.convert_path`",
        covered="SP003 (oracle)",
        notes="also missing in 61.0.0",
    ),
    Change(
        id="ST37",
        what="`build.sub_commands` customisation",
        covered="not a rule",
        notes="silent loss of a customisation; only a comparison of built wheels shows it",
    ),
    Change(
        id="ST38",
        what="`from pkg_resources import packaging`",
        covered="SP003 (oracle)",
        notes="70.0.0–70.3.0; via torch's cpp_extension it needs the dependency's source, not the sdist's",
    ),
    Change(
        id="ST39",
        what="UTF-8 for files read during the build",
        covered="SC003 for setup.cfg",
        notes="other files decode with the locale, UTF-8 on Linux, so a build there already fails or passes the same",
    ),
    Change(
        id="ST40",
        what="`wheel` no longer requested",
        covered="SP009 (oracle)",
        notes="70.1.0–70.3.0; from 71.0.0 setuptools' vendored `wheel` is importable",
        fails=(("70.1.0", "71.0.0"),),
        error=Expected(type="ModuleNotFoundError", message=r"wheel"),
    ),
    Change(
        id="ST41",
        what="`setuptools.extern`",
        covered="SP001 (oracle)",
        notes="non-isolated environments with old packaging are outside sdist content",
    ),
    Change(
        id="ST42",
        what="`test` command",
        covered="SP001 (72.0.0), SP003 (overdue from 72.1.0) (oracle)",
        notes="`tests_require`/`test_suite` only warn",
    ),
    Change(
        id="ST43",
        what="ABC metaclass conflict (73.0.0 only)",
        covered="not a rule",
        notes="needs the metaclass of third-party base classes, known only at run time",
    ),
    Change(id="ST44", what="`upload_docs`", covered="SP001"),
    Change(
        id="ST45",
        what="distutils and setuptools module removals",
        covered="SP001 (module inventory of every wheel)",
    ),
    Change(
        id="ST46",
        what="`[bdist_wheel] universal`",
        covered="SC009 (oracle, enforce)",
        notes="overdue: fails under `SETUPTOOLS_ENFORCE_DEPRECATION=1` from 75.1.0",
        warns=(("75.1.0", None),),
        due=(("75.1.0", "2025-08-30"),),
        references=(_ref("75.1.0", "bdist_wheel.universal deprecated (#4617)"),),
        error=Expected(
            type="SetuptoolsDeprecationWarning", message=r"bdist_wheel.universal is deprecated"
        ),
    ),
    Change(id="ST47", what="metadata output changes", covered="not a rule", notes="output only"),
    Change(
        id="ST48",
        what="distutils private API churn 75.9–78.1",
        covered="SP001/SP003 where a module or recorded name vanished",
        notes="attribute-level internals of compiler classes are not inventoried",
    ),
    Change(
        id="ST49",
        what="script shebangs",
        covered="not a rule",
        notes="output of non-wheel installs",
    ),
    Change(
        id="ST50",
        what="PEP 639 and old `packaging` in the build env",
        covered="not a rule",
        notes="depends on what the environment has installed",
    ),
    Change(
        id="ST51",
        what="license classifiers with an expression",
        covered="PP003 (oracle)",
        fails=(("77.0.1", None),),
        error=Expected(
            type="InvalidConfigError",
            message=r"License classifiers have been superseded by license expressions",
        ),
    ),
    Change(
        id="ST52",
        what="license classifiers deprecated",
        covered="not a rule",
        notes="a warning without a due date never fails, even when enforced",
    ),
    Change(
        id="ST53",
        what="`project.license` table",
        covered="PP004 (oracle)",
        notes="pending in 84.2.1 (due 2027-02-18); 77.0.1–80.10.1 carried 2026-02-18, overdue there",
        due=(("77.0.1", "2026-02-18"), ("80.10.2", "2027-02-18")),
    ),
    Change(
        id="ST54",
        what="license-file patterns",
        covered="LY002 (oracle)",
        notes="patterns from setup.cfg, setup.py and both pyproject tables",
        # an absolute pattern fails; one that matches nothing (or is no glob) warns, with
        # these due dates (`Distribution._find_pattern`); `..`: LICENSE_DOTDOT_DUE
        fails=(("77.0.1", None),),
        due=(("77.0.1", "2026-02-20"), ("77.0.3", "2026-03-20"), ("80.10.2", "2027-02-18")),
    ),
    Change(
        id="ST55",
        what="`[tool.setuptools] license-files`",
        covered="PP006 (oracle)",
        notes="fails when [project] sets `license-files` too; otherwise a deprecation warning",
        fails=(("77.0.1", None),),
        due=(("77.0.1", "2026-02-18"), ("80.10.2", "2027-02-18")),
    ),
    Change(
        id="ST56",
        what="`setup.py install` deprecation",
        covered="SP011 (oracle, enforce) for the project's own code that creates the `install` command in the metadata stage; the wheel stage is a backend fact (`sapper/data/backend.json`, oracle: `tests/oracle/test_stages_oracle.py`)",
        notes="`install.initialize_options` (setuptools' own command) emits \"setup.py install is deprecated\" with a due date (2025-10-31) from 80.1.0 (80.0.1 emits it without one, never an error), so creating the command at all (`get_command_obj`, `get_finalized_command`, `reinitialize_command`, `run_command`, `set_undefined_options` with it) fails under `SETUPTOOLS_ENFORCE_DEPRECATION=1` once it is overdue, whatever warning filters are set (`build_meta` only filters the warning). Every wheel build on setuptools ≥ 80.1.0 does it (`bdist_wheel.run`): with `--enforce-deprecations` the verdict's `stages` say so for the `build_wheel` stage. The metadata stage creates it only when the project's code asks for it (mysql-connector-python 26.10.0: its `build_ext`, finalized by `egg_info`, asks for `install`)",
        warns=(("80.1.0", None),),
        due=(("80.1.0", "2025-10-31"),),
        references=(_ref("80.1.0", "setup.py install deprecation gets a due date"),),
        error=Expected(
            type="SetuptoolsDeprecationWarning", message=r"setup\.py install is deprecated"
        ),
    ),
    Change(id="ST57", what="`setuptools.sandbox`", covered="SP001"),
    Change(
        id="ST58",
        what="`easy_install`/`package_index` modules",
        covered="SP001, SP003 (oracle)",
        notes="attributes other than `sys_executable`/`ScriptWriter` fail from 80.3.0 (and "
        "those two in 80.3.0 itself: ST78)",
    ),
    Change(
        id="ST59",
        what="`pathlib` backport",
        covered="not a rule",
        notes="breaks only when installed into the build environment",
    ),
    Change(
        id="ST60",
        what="`pkg_resources` removed",
        covered="SP001 (oracle), RQ001 (oracle, real pip builds)",
        notes="SP001 also follows setup.py's imports of the project's own package; RQ001 covers build requirements pinning `setuptools-scm<6.3` or `pbr<7`, releases that import `pkg_resources` (read from every wheel of both). Other build plugins are not inventoried",
    ),
    Change(
        id="ST61",
        what="`dry_run` removed",
        covered="SP008 (oracle)",
        notes="module-level code and build-command classes",
        fails=(("81.0.0", None),),
        error=Expected(type="TypeError", message=r"dry_run"),
    ),
    Change(
        id="ST62",
        what="MANIFEST.in Unicode normalisation",
        covered="not a rule",
        notes="output only, for sdists built from a tree",
    ),
    Change(
        id="ST63",
        what="newlines in keywords/platforms",
        covered="not a rule",
        notes="warning without a due date",
    ),
    Change(
        id="ST64", what="unknown `Extension` keywords", covered="not a rule", notes="warning only"
    ),
    Change(
        id="ST65",
        what="compilers read stdlib sysconfig (84.0.0)",
        covered="not statically detectable",
        notes="silent: the build succeeds with different flags; only comparing compiler command lines of real builds catches it",
    ),
    Change(
        id="ST66",
        what="compilers call, not spawn (84.0.0)",
        covered="not statically detectable",
        notes="silent bypass of `spawn` overrides; a real build of the extension catches it",
    ),
    Change(
        id="ST67",
        what="compiler errors and types (84.0.0)",
        covered="not statically detectable",
        notes="which exception an `except` clause needs to catch depends on the compiler run",
    ),
    Change(
        id="ST68",
        what="`archive_util` unsafe members",
        covered="not a rule",
        notes="egg fetching outside PEP 517",
    ),
    Change(id="ST69", what="abi3t suffixes", covered="not a rule", notes="output only"),
    Change(
        id="ST70",
        what="entry-point extras at load",
        covered="not a rule",
        notes="plugins installed in the build environment",
    ),
    Change(
        id="ST71",
        what="`file:`/`attr:` directives and lower bounds",
        covered="SC008, SC010 (`file:` requirements before 62.6.0), PP001/PP002/PP007 (`license-files`, license strings before 77.0.1, `ext-modules` before 74.1.0, dynamic dependencies before 62.6.0)",
        notes="`[project]` itself needs 61.0.0, but older releases ignore the table instead of failing",
        fails=((None, "62.6.0"),),
    ),
    Change(
        id="ST72",
        what="keywords without a hard change",
        covered="guard",
        notes="`dependency_links`, `data_files`, `zip_safe`, `setup_requires`, `namespace_packages`, `tests_require`, unknown keywords: not reported",
    ),
    # ST73-ST75: names under [tool.setuptools] that the vendored validate-pyproject formats
    # (`_validate_pyproject/formats.py`) reject until a release; each bound bisected with the
    # real wheels of 61.0.0..84.2.1 (read_configuration on a one-key pyproject.toml) and built
    # on both sides by tests/oracle/test_pyproject_oracle.py (pp007-names-*), not by
    # test_boundaries.py: PP007's one example shows another facet, so no `error=` here. Real
    # setuptools raises `ValueError: invalid pyproject.toml config: `tool.setuptools.<field>``.
    Change(
        id="ST73",
        what="PEP 561 stub names (`x-stubs`) in `tool.setuptools.packages` and `package-dir` keys",
        covered="PP007 (oracle)",
        notes="`pep561-stub-name` accepted from 67.1.0 (validate-pyproject 0.12.1)",
        fails=(("61.0.0", "67.1.0"),),
        references=(_ref("67.1.0", "stub packages in packages and package-dir (#3798)"),),
    ),
    Change(
        id="ST74",
        what="dashed names (`my-pkg`) in `packages`, `package-dir` keys, `py-modules`, `namespace-packages`",
        covered="PP007 (oracle)",
        notes="`python-module-name-relaxed` from 73.0.0 (a `*-stubs` py-module or namespace package stays rejected)",
        fails=(("61.0.0", "73.0.0"),),
    ),
    Change(
        id="ST75",
        what="stub or dashed keys in `tool.setuptools.package-data` / `exclude-package-data`",
        covered="PP007 (oracle)",
        notes='keys are `python-module-name` or `*` until 82.0.1 (validate-pyproject #248); `""` is rejected by every release',
        fails=(("61.0.0", "82.0.1"),),
    ),
    # ST76: read from setuptools/config/pyprojecttoml.py of the real wheels 82.0.0..84.2.1
    # (the check arrived with the PEP 794 schema of 82.0.1); built on both sides by
    # tests/oracle/test_validator_oracle.py. Before 82.0.1 the validator rejects the keys
    # (ST23, PP001), so the rule's example fails on both sides and has no `error=` here.
    Change(
        id="ST76",
        what="`import-names` / `import-namespaces` (PEP 794) in `[project]`",
        covered="PP010 (oracle); before 82.0.1 PP001 (the validator rejects the keys)",
        notes="raised before validation, also when the key is only listed in `dynamic`",
        fails=(("82.0.1", None),),
    ),
    # ST77: the validators before 82.0.1 accept an empty author table; every release's
    # `_apply_pyprojecttoml._people` then reads person["email"]; proven by
    # tests/oracle/test_validator_oracle.py (empty-author-table).
    Change(
        id="ST77",
        what="an author or maintainer table with neither `name` nor `email`",
        covered="PP001 (oracle)",
        notes="`KeyError: 'email'` after validation, or the validator's own rejection in the releases whose schema wants one of the two",
        fails=(("61.0.0", None),),
    ),
    Change(
        id="ST78",
        what="`setuptools.command.easy_install.ScriptWriter` and `sys_executable`",
        covered="RQ002 (oracle, real pbr wheel builds)",
        notes="80.3.0 stubbed the module down to the `easy_install` command, so pbr's "
        "`install_scripts` (`easy_install.sys_executable`, read in every wheel build) failed; "
        "80.3.1 serves both again with a deprecation warning due 2025-10-31",
        fails=(("80.3.0", "80.3.1"),),
        warns=(("80.3.1", None),),
        due=(("80.3.1", "2025-10-31"),),
        references=(_ref("80.3.1", "easy_install attributes restored for pbr (#4976)"),),
        error=Expected(
            type="AttributeError",
            message=r"module 'setuptools.command.easy_install' has no attribute",
        ),
    ),
    Change(
        id="ST79",
        what="setup.cfg `attr:` of a submodule imports its package",
        covered="SC013 (oracle, email-validator 2.4.0)",
        notes="before 61.0.0 `attr:` finds the module with `importlib.util.find_spec`, which "
        "imports the parent package, then falls back to importing the module; 61.0.0 locates "
        "the file and reads it statically. A package whose `__init__.py` imports a runtime "
        "dependency fails (bisected: 60.10.0 fails, 61.0.0 builds)",
        fails=((None, "61.0.0"),),
        references=(_ref("61.0.0", "configuration reading rewritten"),),
        error=Expected(type="ModuleNotFoundError", message=r"No module named '"),
    ),
    Change(
        id="ST80",
        what="`setuptools.dist._get_unpatched` removed",
        covered="RQ002 (oracle, real pbr 3.1.1 wheel builds)",
        notes="pbr before 4.0.0 calls it in its `pbr=True` setup keyword (every build), so "
        "an old pbr pin fails with `AttributeError` from 68.0.0 on (67.8.0 ships it)",
        fails=(("68.0.0", None),),
        references=(_ref("68.0.0", "release notes"),),
        error=Expected(
            type="AttributeError",
            message=r"module 'setuptools.dist' has no attribute '_get_unpatched'",
        ),
    ),
    Change(
        id="ST81",
        what="the `bdist_wininst` command removed from setuptools' distutils",
        covered="RQ002 (oracle, real pbr 5.4.5 wheel builds)",
        notes="pbr before 5.5.0 asks for it (`get_finalized_command('bdist_wininst')`) in "
        "its `install_scripts`, in every wheel build: `error: invalid command "
        "'bdist_wininst'` from 65.0.0 on (64.0.3 ships it)",
        fails=(("65.0.0", None),),
        references=(_ref("65.0.0", "release notes"),),
        error=Expected(type="SystemExit", message=r"invalid command 'bdist_wininst'"),
    ),
    Change(
        id="ST82",
        what="the `bdist_wininst` command before 60.0.0, on Python 3.10 and later",
        covered="RQ002 (oracle, real pbr 5.4.5 wheel builds on Python 3.11)",
        notes="before 60.0.0 setuptools uses the standard library's distutils, which lost "
        "`bdist_wininst` in Python 3.10: `invalid command 'bdist_wininst'` (57.5.0-59.x), "
        "`No module named 'distutils.command.bdist_wininst'` (setuptools' own wrapper, "
        "54.1.2); older Pythons have it",
        fails=((None, "60.0.0"),),
        references=(_ref("60.0.0", "setuptools' own distutils by default"),),
    ),
    Change(
        id="ST83",
        what="`egg_info.ignore_egg_info_in_manifest` added in 64.0.0",
        covered="RQ002 (oracle, real setuptools-scm 10.3.4 builds)",
        notes="setuptools-scm 10.1.1 on reads it in its `egg_info` mixin when the sdist ships "
        "a tracked-file list (`*.egg-info/scm_file_list.json`, written by setuptools-scm 10): "
        "`AttributeError: ignore_egg_info_in_manifest` with any older setuptools, which "
        "setuptools-scm's unbounded `setuptools` requirement lets pip install",
        fails=((None, "64.0.0"),),
        references=(_ref("64.0.0", "release notes"),),
        error=Expected(type="AttributeError", message=r"ignore_egg_info_in_manifest"),
    ),
    Change(
        id="ST84",
        what="distutils' 2to3 helpers (`build_py_2to3`, `run_2to3`, `copydir_run_2to3`, "
        "`Mixin2to3`) once setuptools' own distutils is the default",
        covered="SP003 (oracle; names of `distutils.command.build_py` and `distutils.util` "
        "in the release facts)",
        notes="setuptools' copy of distutils dropped them in 58.0.0, but before 60.0.0 a build "
        "imports the standard library's distutils, which has them up to Python 3.11: "
        "`from distutils.command.build_py import build_py_2to3` fails from 60.0.0 on "
        "(docutils 0.10, whose `except ImportError` exits); proved by the oracle cases "
        "`SP003-distutils-*` (59.8.0, 60.0.0, 84.2.1), not by the rule's example",
        fails=(("60.0.0", None),),
        references=(_ref("60.0.0", "setuptools' own distutils by default"),),
    ),
)

# ------------------------------------------------------------ release bounds rules read
# Bounds that are no entry's failing range or due dates, each naming its entry: a rule
# takes every version it compares with from here or from an entry, never a literal.

#: ST23, ST71: the first release that reads (and validates) `[project]`.
PROJECT_TABLE_SINCE = "61.0.0"
#: ST23: `_skip_bad_config`: [first, stop) of the releases that ignore an invalid [project]
#: holding only a few popular keys, with a warning (61.2.0, #3215); 68.0.0 (#3948) ended it.
PROJECT_RELAX = ("61.2.0", "68.0.0")
#: ST23: from 61.2.0 a field listed in `project.dynamic` may be filled from setup.py or
#: setup.cfg (`_ensure_previously_set`); 61.0.0-61.1.1 fill it only from
#: [tool.setuptools.dynamic].
DYNAMIC_FROM_SETUP_SINCE = "61.2.0"
#: ST23: the first release that stops on a [project] without `version` that does not list
#: it in `dynamic` ("`project` must contain ['version'] properties").
PROJECT_VERSION_REQUIRED_SINCE = "61.2.0"
#: ST23, ST71, ST76: [project] keys the vendored schema accepts from a release (PEP 639 in
#: 77.0.1, PEP 794 in 82.0.1).
PROJECT_KEYS_SINCE = {
    "license-files": "77.0.1",
    "import-names": "82.0.1",
    "import-namespaces": "82.0.1",
}
#: ST71: the first release that accepts a PEP 639 license expression as the
#: `project.license` string (older releases with [project] reject any string).
LICENSE_EXPRESSION_SINCE = "77.0.1"
#: ST71: [tool.setuptools] keys accepted from a release.
TOOL_KEYS_SINCE = {"ext-modules": "74.1.0"}
#: ST71: `[tool.setuptools.dynamic]` fields accepted from a release.
DYNAMIC_KEYS_SINCE = {"dependencies": "62.6.0", "optional-dependencies": "62.6.0"}
#: ST34: what becomes of a field setup.py or setup.cfg supplies that `project.dynamic`
#: does not list, per field: (first release, stop or None, "fails"/"dropped"/"kept"). Probed
#: field by field on every release from 68.2.2 to 84.2.1 (69.1.0-70.0.0 for
#: optional-dependencies: no crash, kept or dropped not established, reported as dropped).
MISSING_DYNAMIC_EFFECTS: dict[str, tuple[tuple[str, str | None, str], ...]] = {
    "readme": (("69.0.0", None, "fails"),),
    "requires-python": (("69.0.0", None, "fails"),),
    "license": (("69.0.0", "77.0.1", "fails"), ("77.0.1", None, "dropped")),
    "optional-dependencies": (
        ("69.0.0", "69.1.0", "fails"),
        ("69.1.0", "70.1.0", "dropped"),
        ("70.1.0", "75.3.0", "kept"),
        ("75.3.0", None, "dropped"),
    ),
    "authors": (("69.0.0", None, "kept"),),
    "maintainers": (("69.0.0", None, "kept"),),
    "entry-points": (("69.0.0", None, "kept"),),
}
#: ST34: the effect for any other field.
MISSING_DYNAMIC_DEFAULT: tuple[tuple[str, str | None, str], ...] = (("69.0.0", None, "dropped"),)
#: ST22: the releases from which `FlatLayoutPackageFinder` reserves a new set of names
#: (61.0.0, then `htmlcov` in 67.5.1, `debian` and `newsfragments` in 68.1.0).
FLAT_LAYOUT_ERAS = ("61.0.0", "67.5.1", "68.1.0")
#: ST22: from this release a `configuration=` keyword of setup() skips discovery.
FLAT_LAYOUT_CONFIGURED = "61.1.0"
#: ST54: a `..` license pattern failed in 77.0.1 and warns from 77.0.3 (#4896), due then.
LICENSE_DOTDOT_DUE = (("77.0.3", "2026-03-20"), ("80.10.2", "2027-02-18"))


#: SP003: names served by a module-level ``__getattr__`` after they stopped being defined: the
#: first release that serves them and the due date of the deprecation warning it emits
#: (``None``: a plain DeprecationWarning that SETUPTOOLS_ENFORCE_DEPRECATION ignores).
#: Read from the wheels: command/test.py (72.1.0), command/easy_install.py (80.3.1),
#: dep_util.py (69.0.0 serves only newer_pairwise_group; 69.0.1 adds newer_group),
#: dist.py (75.2.0).
SERVED_NAMES: dict[tuple[str, str], tuple[str, str | None]] = {
    ("setuptools.command.test", "test"): ("72.1.0", "2024-11-15"),
    ("setuptools.command.easy_install", "sys_executable"): ("80.3.1", "2025-10-31"),
    ("setuptools.command.easy_install", "ScriptWriter"): ("80.3.1", "2025-10-31"),
    ("setuptools.dep_util", "newer_pairwise_group"): ("69.0.0", None),
    ("setuptools.dep_util", "newer_group"): ("69.0.1", None),
    ("setuptools.dist", "sequence"): ("75.2.0", "2025-08-28"),
}


_BY_ID = {c.id: c for c in CHANGES}


def change(ident: str) -> Change:
    """The entry ``ident`` (``"ST04"``)."""
    return _BY_ID[ident]
