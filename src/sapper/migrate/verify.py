"""The proof of a migration: the wheel built before and after is the same.

:func:`verify_migration` builds a wheel of the tree before and of the tree after the
migration with sapper's sandboxed PEP 517 runner (:class:`sapper.build.Builder`), both with
the same setuptools — the newest release sapper knows that the after-tree's
``build-system.requires`` admits, pinned on both sides, so that only the configuration
differs — and :func:`compare_wheels` compares what an installer takes from them:

* ``METADATA``: every header field as a multiset of values (order is not meaningful:
  ``Classifier`` or ``Requires-Dist`` lines may come in another order), and the body (the
  long description) as text;
* ``entry_points.txt``: per group, the set of entry points;
* the file list from ``RECORD``: the ``.dist-info`` directory's name, the paths in it
  (relative to it), every other path, and the content (by SHA-256) of every file outside
  ``.dist-info``;
* ``top_level.txt``: the set of names;
* ``WHEEL``: ``Root-Is-Purelib`` and the ``Tag`` lines (as a set).

Normalisations, each where setuptools legitimately writes another spelling for the same
installed result, and nowhere else:

1. ``Dynamic:`` lines are ignored. setuptools marks as ``Dynamic`` each field whose value
   did not come from a static source (a ``setup()`` keyword is never static, a
   ``[project]`` value always is); PEP 643 gives ``Dynamic`` a meaning in an sdist's
   ``PKG-INFO`` only, and no installer reads it from a wheel.
2. ``License: X`` before and ``License-Expression: X`` after count as the same when ``X``
   is a valid SPDX expression and both sides canonicalise to the same one (with
   :func:`packaging.licenses.canonicalize_license_expression`). A ``[project]`` table
   declares a license string only as a PEP 639 expression, which setuptools writes as
   ``License-Expression``; PEP 639 deprecates ``License`` in favour of it for exactly
   this content. A ``License`` that is not a valid expression is compared as written.
3. ``Requires-Python`` is compared as a specifier set (``>= 3.10`` is ``>=3.10``;
   ``<4,>=3.8`` is ``>=3.8, <4``): setuptools writes a ``[project]`` ``requires-python``
   through :class:`packaging.specifiers.SpecifierSet` (canonical spelling, sorted), a
   legacy ``python_requires`` as written; pip and uv parse both into the same set. A
   value that does not parse is compared as written.
4. Entry point values are compared with their whitespace removed (``mod : func`` is
   ``mod:func``; the entry point grammar ignores it), before an extras list kept apart.

5. (:func:`verify_migration` only) The content of a file that also differs between two
   builds of the unchanged tree is compared by name only, and the reason says which: a
   compiler embeds the random build directory in an extension module's debug
   information, so two builds of the same tree are not byte-identical; that is no effect
   of the migration. The second build is made only when some content differs.

``Metadata-Version`` is compared: both wheels come from the same setuptools, which picks
it, so a difference would be one a migration caused.
"""

from __future__ import annotations

import configparser
import contextlib
import csv
import email.parser
import email.policy
import hashlib
import io
import re
import shutil
import subprocess
import tempfile
import zipfile
from collections import Counter
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from .._exceptions import ArchiveError, SandboxError

if TYPE_CHECKING:
    from ..build import Builder, BuildResult

__all__ = [
    "Verification",
    "WheelDifference",
    "changed_contents",
    "compare_wheels",
    "newest_setuptools",
    "verify_migration",
]

Status = Literal["equivalent", "different", "unverified"]

#: How many paths one file-list difference names before it says "and N more".
_LIST_CAP = 20
#: How many files with another content are reported one by one.
_CONTENT_CAP = 20
#: The longest excerpt of a long description a difference shows.
_EXCERPT = 160


@dataclass(frozen=True, slots=True)
class WheelDifference:
    """One thing an installer would see differently in the wheel after the migration.

    ``what`` names it (``METADATA Classifier``, ``entry_points [console_scripts]``,
    ``files``, ``content of pkg/__init__.py``, ``build``...); ``before`` and ``after`` are
    what only that side has (one value per line; ``(absent)`` when a side has none).
    """

    what: str
    before: str
    after: str


@dataclass(frozen=True, slots=True)
class Verification:
    """The verdict on one migration.

    ``equivalent``: both trees built and the wheels agree; ``different``: they differ (or
    the migrated tree no longer builds), see ``differences``; ``unverified``: no proof
    either way (no sandbox, the tree before the migration does not build...), ``reason``
    says why.
    """

    status: Status
    differences: tuple[WheelDifference, ...]
    reason: str


# --------------------------------------------------------------------------- wheels


@dataclass(frozen=True, slots=True)
class _Wheel:
    name: str
    dist_info: str
    #: RECORD's paths: inside ``.dist-info`` (relative to it), and the rest.
    dist_files: frozenset[str]
    files: dict[str, str]  # path -> sha256 of the content
    metadata: list[tuple[str, str]]  # (header name, value) in order
    body: str
    entry_points: dict[str, frozenset[str]] | None
    top_level: frozenset[str] | None
    wheel: list[tuple[str, str]]


def _read_wheel(path: Path) -> _Wheel:
    """Read what :func:`compare_wheels` compares from the wheel at ``path``.

    :raises ArchiveError: when it is not a readable wheel.
    """
    try:
        with zipfile.ZipFile(path) as archive:
            names = set(archive.namelist())
            dist_infos = sorted(
                {
                    n.split("/", 1)[0]
                    for n in names
                    if n.count("/") == 1 and n.endswith("/METADATA") and ".dist-info/" in n
                }
            )
            if len(dist_infos) != 1:
                msg = (
                    f"{path}: not a wheel (expected one top-level .dist-info directory with a "
                    f"METADATA file, found {len(dist_infos)}); pass a wheel built by a PEP 517 "
                    "backend"
                )
                raise ArchiveError(msg)
            dist_info = dist_infos[0]

            def text(member: str) -> str | None:
                full = f"{dist_info}/{member}"
                if full not in names:
                    return None
                return archive.read(full).decode("utf-8", errors="surrogateescape")

            record = text("RECORD")
            listed = _record_paths(record) if record is not None else sorted(names)
            files: dict[str, str] = {}
            dist_files: set[str] = set()
            for member in listed:
                if member.startswith(f"{dist_info}/"):
                    dist_files.add(member.removeprefix(f"{dist_info}/"))
                elif member in names:
                    files[member] = hashlib.sha256(archive.read(member)).hexdigest()
                else:
                    files[member] = "(listed in RECORD, missing from the archive)"
            metadata_text = text("METADATA") or ""
            entry_points = text("entry_points.txt")
            top_level = text("top_level.txt")
            wheel_text = text("WHEEL") or ""
    except (zipfile.BadZipFile, OSError, KeyError) as exc:
        msg = f"{path}: cannot read the wheel ({exc}); pass a complete wheel file"
        raise ArchiveError(msg) from exc
    headers, body = _parse_headers(metadata_text)
    return _Wheel(
        name=path.name,
        dist_info=dist_info,
        dist_files=frozenset(dist_files),
        files=files,
        metadata=headers,
        body=body,
        entry_points=_parse_entry_points(entry_points) if entry_points is not None else None,
        top_level=(
            frozenset(line.strip() for line in top_level.splitlines() if line.strip())
            if top_level is not None
            else None
        ),
        wheel=_parse_headers(wheel_text)[0],
    )


def _record_paths(record: str) -> list[str]:
    return [row[0] for row in csv.reader(io.StringIO(record)) if row and row[0]]


def _parse_headers(text: str) -> tuple[list[tuple[str, str]], str]:
    """The header fields (name, value; continuation lines kept as written) and the body of
    an RFC 822 style file (``METADATA``, ``WHEEL``)."""
    message = email.parser.Parser(policy=email.policy.compat32).parsestr(text)
    payload = message.get_payload()
    body = payload if isinstance(payload, str) else ""
    return [(str(k), str(v)) for k, v in message.items()], body


def _parse_entry_points(text: str) -> dict[str, frozenset[str]]:
    parser = configparser.ConfigParser(delimiters=("=",), interpolation=None, strict=False)
    parser.optionxform = str  # type: ignore[assignment, method-assign]
    try:
        parser.read_string(text)
    except configparser.Error as exc:
        # compared as text then: a difference still shows
        return {"(unparsable entry_points.txt)": frozenset({f"{exc}\n{text}"})}
    return {
        group: frozenset(
            f"{name.strip()} = {_entry_point_value(value)}" for name, value in parser.items(group)
        )
        for group in parser.sections()
    }


_EXTRAS_RE = re.compile(r"\[(?P<extras>[^\]]*)\]\s*$")


def _entry_point_value(value: str) -> str:
    """Normalisation 4: ``mod : func [a, b]`` -> ``mod:func [a,b]``."""
    extras = ""
    match = _EXTRAS_RE.search(value)
    if match:
        extras = " [" + re.sub(r"\s+", "", match["extras"]) + "]"
        value = value[: match.start()]
    return re.sub(r"\s+", "", value) + extras


# --------------------------------------------------------------------------- comparison


def compare_wheels(
    before: Path, after: Path, *, names_only: Collection[str] = ()
) -> tuple[WheelDifference, ...]:
    """What an installer would see differently in the wheel ``after`` than in ``before``
    (empty when nothing); see the module's docstring for what is compared and the
    normalisations. ``names_only``: paths (outside ``.dist-info``) whose content is not
    compared (see :func:`changed_contents`).

    :raises ArchiveError: when either file is not a readable wheel.
    """
    old = _read_wheel(before)
    new = _read_wheel(after)
    out: list[WheelDifference] = []
    out.extend(_compare_metadata(old, new))
    out.extend(_compare_entry_points(old.entry_points, new.entry_points))
    out.extend(_compare_files(old, new, frozenset(names_only)))
    if old.top_level != new.top_level:
        out.append(
            WheelDifference(
                "top_level.txt",
                _only(old.top_level, new.top_level),
                _only(new.top_level, old.top_level),
            )
        )
    out.extend(_compare_wheel_file(old.wheel, new.wheel))
    return tuple(out)


def changed_contents(before: Path, after: Path) -> frozenset[str]:
    """The paths outside ``.dist-info`` that both wheels have with another content.

    :raises ArchiveError: when either file is not a readable wheel.
    """
    old, new = _read_wheel(before).files, _read_wheel(after).files
    return frozenset(p for p in old.keys() & new.keys() if old[p] != new[p])


def _only(these: Iterable[str] | None, others: Iterable[str] | None) -> str:
    if these is None:
        return "(absent)"
    rest = Counter(these) - Counter(others or ())
    return "\n".join(sorted(rest.elements())) or "(none)"


def _fields(headers: list[tuple[str, str]]) -> dict[str, Counter[str]]:
    """Header values by lower-cased field name, with normalisations 1 and 3 applied."""
    out: dict[str, Counter[str]] = {}
    for name, value in headers:
        key = name.lower()
        if key != "dynamic":
            text = _specifiers(value) if key == "requires-python" else value
            out.setdefault(key, Counter())[text] += 1
    return out


def _specifiers(text: str) -> str:
    """Normalisation 3: a specifier set in packaging's spelling (sorted, no spaces)."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    try:
        return str(SpecifierSet(text))
    except InvalidSpecifier:
        return text


def _canonical_license(text: str) -> str | None:
    from packaging.licenses import InvalidLicenseExpression, canonicalize_license_expression

    try:
        return str(canonicalize_license_expression(text.strip()))
    except InvalidLicenseExpression:
        return None


def _license_as_expression(old: dict[str, Counter[str]], new: dict[str, Counter[str]]) -> None:
    """Normalisation 2, in place: ``License: X`` before, ``License-Expression: X`` after."""
    licenses = list(old.get("license", Counter()).elements())
    expressions = list(new.get("license-expression", Counter()).elements())
    if (
        len(licenses) == 1
        and len(expressions) == 1
        and "license-expression" not in old
        and "license" not in new
    ):
        canonical = _canonical_license(licenses[0])
        if canonical is not None and canonical == _canonical_license(expressions[0]):
            del old["license"]
            del new["license-expression"]


def _compare_metadata(old: _Wheel, new: _Wheel) -> list[WheelDifference]:
    before = _fields(old.metadata)
    after = _fields(new.metadata)
    _license_as_expression(before, after)
    spelled = {k.lower(): k for k, _ in (*new.metadata, *old.metadata)}
    out = []
    for key in sorted(before.keys() | after.keys()):
        left, right = before.get(key, Counter()), after.get(key, Counter())
        if left != right:
            out.append(
                WheelDifference(
                    f"METADATA {spelled[key]}",
                    "\n".join(sorted((left - right).elements())) or "(absent)",
                    "\n".join(sorted((right - left).elements())) or "(absent)",
                )
            )
    if old.body != new.body:
        a, b = _excerpts(old.body, new.body)
        out.append(WheelDifference("METADATA description (body)", a, b))
    return out


def _excerpts(left: str, right: str) -> tuple[str, str]:
    """The two texts from a little before their first difference, capped."""
    if not left or not right:
        return (left[:_EXCERPT] or "(absent)", right[:_EXCERPT] or "(absent)")
    start = 0
    for start, (a, b) in enumerate(zip(left, right, strict=False)):  # noqa: B007
        if a != b:
            break
    else:
        start = min(len(left), len(right))
    begin = max(0, start - 40)
    prefix = "..." if begin else ""

    def cut(text: str) -> str:
        part = text[begin : begin + _EXCERPT]
        return f"{prefix}{part}{'...' if begin + _EXCERPT < len(text) else ''}" or "(end)"

    return cut(left), cut(right)


def _compare_entry_points(
    old: dict[str, frozenset[str]] | None, new: dict[str, frozenset[str]] | None
) -> list[WheelDifference]:
    left, right = old or {}, new or {}
    out = []
    for group in sorted(left.keys() | right.keys()):
        a, b = left.get(group, frozenset()), right.get(group, frozenset())
        if a != b:
            out.append(
                WheelDifference(
                    f"entry_points [{group}]",
                    "\n".join(sorted(a - b)) or "(absent)",
                    "\n".join(sorted(b - a)) or "(absent)",
                )
            )
    return out


def _capped(paths: Iterable[str]) -> str:
    items = sorted(paths)
    if not items:
        return "(none)"
    shown = items[:_LIST_CAP]
    more = len(items) - len(shown)
    return "\n".join(shown) + (f"\n... and {more} more" if more else "")


def _compare_files(old: _Wheel, new: _Wheel, names_only: frozenset[str]) -> list[WheelDifference]:
    out = []
    if old.dist_info != new.dist_info:
        out.append(WheelDifference("dist-info directory", old.dist_info, new.dist_info))
    if old.dist_files != new.dist_files:
        out.append(
            WheelDifference(
                "files in .dist-info",
                _capped(old.dist_files - new.dist_files),
                _capped(new.dist_files - old.dist_files),
            )
        )
    left, right = set(old.files), set(new.files)
    if left != right:
        out.append(WheelDifference("files", _capped(left - right), _capped(right - left)))
    changed = sorted(
        p for p in left & right if old.files[p] != new.files[p] and p not in names_only
    )
    for path in changed[:_CONTENT_CAP]:
        out.append(WheelDifference(f"content of {path}", old.files[path], new.files[path]))
    if len(changed) > _CONTENT_CAP:
        rest = changed[_CONTENT_CAP:]
        out.append(
            WheelDifference(f"content of {len(rest)} more files", _capped(rest), "(other contents)")
        )
    return out


def _compare_wheel_file(
    old: list[tuple[str, str]], new: list[tuple[str, str]]
) -> list[WheelDifference]:
    out = []
    for field, as_set in (("Root-Is-Purelib", False), ("Tag", True)):
        a = [v.strip() for k, v in old if k.lower() == field.lower()]
        b = [v.strip() for k, v in new if k.lower() == field.lower()]
        same = set(a) == set(b) if as_set else [x.lower() for x in a] == [x.lower() for x in b]
        if not same:
            out.append(
                WheelDifference(
                    f"WHEEL {field}",
                    "\n".join(sorted(set(a) - set(b)) if as_set else a) or "(absent)",
                    "\n".join(sorted(set(b) - set(a)) if as_set else b) or "(absent)",
                )
            )
    return out


# --------------------------------------------------------------------------- builds


def newest_setuptools(tree: Path, *, python: str | None = None) -> str | None:
    """The newest setuptools release sapper knows that the ``build-system.requires`` of
    ``tree`` (a source tree or an sdist) admits (PEP 517's default ``setuptools>=40.8.0``
    without one) for Python ``python`` (``3.12.1``; None: any), as pip or uv would install
    it; None when none does.

    :raises BuildError: for a ``pyproject.toml`` a frontend would reject.
    """
    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.specifiers import SpecifierSet
    from packaging.utils import canonicalize_name

    from ..build._runner import _build_system
    from ..versions import catalogue

    if not tree.is_dir():
        from ..build import unpack_sdist

        with tempfile.TemporaryDirectory(prefix="sapper-migrate-") as tmp:
            return newest_setuptools(unpack_sdist(tree, Path(tmp) / "x"), python=python)
    _, _, requires = _build_system(tree)
    specifier = SpecifierSet()
    for text in requires:
        with contextlib.suppress(InvalidRequirement):
            requirement = Requirement(text)
            if canonicalize_name(requirement.name) == "setuptools":
                specifier &= requirement.specifier
    return catalogue().select(specifier, python=python)


def _python_version(builder: Builder) -> str | None:
    import sys

    if builder.python == sys.executable:
        return "{}.{}.{}".format(*sys.version_info[:3])
    try:
        run = subprocess.run(
            [builder.python, "-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])"],
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return run.stdout.strip() or None


def _why(result: BuildResult) -> str:
    return (
        result.signature
        or result.message
        or result.spurious_reason
        or f"{result.outcome} in {result.hook or 'the build'}"
    )


def _build(
    builder: Builder, source: Path, pin: str, keep: Path, *, move: bool = False
) -> BuildResult:
    """One wheel build with setuptools pinned, retried once after a spurious failure (a
    cap or the sandbox ended it: a timeout on a loaded machine...)."""
    result = builder.build(source, mode="wheel", override=[pin], keep=keep, move_source=move)
    if result.outcome == "spurious" and source.exists():
        result = builder.build(source, mode="wheel", override=[pin], keep=keep)
    return result


def verify_migration(before: Path, after: Path, *, builder: Builder | None = None) -> Verification:
    """Build a wheel of the tree ``before`` and of the migrated tree ``after`` (source trees,
    or sdist archives) in the build sandbox, with the same setuptools, and compare them.

    The setuptools is the newest release sapper knows that ``after``'s
    ``build-system.requires`` admits, pinned for both builds (``before`` through the
    runner's override, as pip's ``--build-constraint`` would). A tree whose directory
    name differs from ``before``'s is built under ``before``'s name (a version derived from
    the folder's name must not differ for that reason). ``builder``: default a
    :class:`~sapper.build.Builder` on sapper's cache directory.

    Never raises for what the trees do: no sandbox, a tree before the migration that does
    not build, a build that could not be set up are ``unverified`` with the reason; a
    migrated tree that no longer builds is ``different``.
    """
    from .._exceptions import BuildError
    from ..build import Builder

    if builder is None:
        builder = Builder()
    try:
        builder.check()
    except SandboxError as exc:
        return Verification("unverified", (), f"no build sandbox, so no proof: {exc}")
    try:
        version = newest_setuptools(after, python=_python_version(builder))
    except BuildError as exc:
        difference = WheelDifference("build", "a wheel", f"no build: {exc}")
        return Verification("different", (difference,), f"the migrated tree: {exc}")
    if version is None:
        return Verification(
            "unverified",
            (),
            "no setuptools release sapper knows satisfies the migrated build-system.requires",
        )
    pin = f"setuptools=={version}"
    with tempfile.TemporaryDirectory(prefix="sapper-migrate-verify-") as tmp:
        work = Path(tmp)
        try:
            old = _build(builder, before, pin, work / "before")
            if old.outcome != "ok":
                return Verification(
                    "unverified",
                    (),
                    f"the tree before the migration does not build a wheel with setuptools "
                    f"{version} ({old.outcome} in {old.hook}: {_why(old)}), so there is "
                    "nothing to compare with",
                )
            source, move = after, False
            if after.is_dir() and before.is_dir() and after.name != before.name:
                source, move = work / "stage" / before.name, True
                shutil.copytree(after, source, symlinks=True, ignore=shutil.ignore_patterns(".git"))
            new = _build(builder, source, pin, work / "after", move=move)
        except SandboxError as exc:
            return Verification("unverified", (), f"no build sandbox, so no proof: {exc}")
        if new.outcome == "fail" or (
            new.outcome == "prepare-fail" and (new.message or "").startswith("pyproject.toml:")
        ):
            message = (new.message or _why(new))[-1500:]
            difference = WheelDifference("build", "a wheel", f"{new.hook}: {message}")
            return Verification(
                "different",
                (difference,),
                f"the migrated tree does not build with setuptools {version}: {_why(new)}",
            )
        if new.outcome != "ok":
            return Verification(
                "unverified",
                (),
                f"the build of the migrated tree did not finish ({new.outcome} in "
                f"{new.hook}: {_why(new)})",
            )
        assert old.artifact_path is not None
        assert new.artifact_path is not None
        first, migrated = Path(old.artifact_path), Path(new.artifact_path)
        unstable: frozenset[str] = frozenset()
        changed = changed_contents(first, migrated)
        if changed:
            # normalisation 5: is the content stable at all? A second build of the
            # unchanged tree says (a compiler embeds the random build directory...)
            again = _build(builder, before, pin, work / "again")
            if again.outcome == "ok":
                assert again.artifact_path is not None
                unstable = changed & changed_contents(first, Path(again.artifact_path))
        differences = compare_wheels(first, migrated, names_only=unstable)
    same = (
        f"built with setuptools {version} before and after: the same METADATA, entry "
        "points, files, top_level.txt and WHEEL tags"
    )
    if unstable:
        same += (
            f"; {len(unstable)} file(s) differ between two builds of the unchanged tree too "
            f"and were compared by name only ({', '.join(sorted(unstable)[:3])}"
            + (", ...)" if len(unstable) > 3 else ")")
        )
    if differences:
        return Verification(
            "different",
            differences,
            f"built with setuptools {version}, the wheels differ in "
            + ", ".join(d.what for d in differences),
        )
    return Verification("equivalent", (), same)
