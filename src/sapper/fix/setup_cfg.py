"""The setup.cfg editor: the rules' setup.cfg fixes edit through it, line by line, never
through configparser.

The file is split into lines with their own endings and read with configparser's line rules
(full-line ``#``/``;`` comments, indented continuation lines, empty lines inside values).
An edit replaces, deletes or inserts whole lines; every other byte stays as it was. What is
fixed is what ``sapper check`` reported: each finding goes to its rule's ``Fix.apply`` with
the option at its line (``apply(fixer, finding, option)``); the shared edits of renamed keys
(SC001, SC002) are :meth:`CfgFixer.fix_key`.
"""

from __future__ import annotations

import configparser
import datetime as _dt
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..facts.cfgkeys import METADATA_KEYS, METADATA_RENAMES, content_type
from ..inputs.sources import ProjectFiles
from ..model import Finding
from . import Edit, Status
from .setup_py import SetupPyInfo

__all__ = ["CfgFixer", "CfgOption", "IniDoc", "fix_setup_cfg"]

PATH = "setup.cfg"
#: The findings that leave setup.cfg unreadable to configparser: nothing is edited then.
_BLOCKING = ("SC003", "SC004", "SC005")

_SECTCRE = configparser.RawConfigParser.SECTCRE
_OPTCRE = configparser.RawConfigParser.OPTCRE
_LINES = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")

# --------------------------------------------------------------------------- the document


@dataclass(slots=True)
class CfgOption:
    section: str
    key: str
    #: Index of the ``key = value`` line; -1 for an option added by a fix.
    line: int
    #: Indexes of the continuation lines (comments excluded, empty lines included).
    continuation: list[int] = field(default_factory=list)
    value: str = ""
    deleted: bool = False

    @property
    def name(self) -> str:
        return self.key.replace("-", "_").lower()

    @property
    def last(self) -> int:
        lines = [self.line, *self.continuation]
        return max(lines)


@dataclass(slots=True)
class _Section:
    name: str
    header: int
    options: list[CfgOption] = field(default_factory=list)


class IniDoc:
    """A setup.cfg held as lines, with whole-line edits rendered on request."""

    def __init__(self, text: str) -> None:
        self.lines: list[str] = _LINES.findall(text)
        first_end = next((ln for ln in self.lines if ln.endswith(("\n", "\r"))), "\n")
        self.newline = "\r\n" if first_end.endswith("\r\n") else first_end[-1:] or "\n"
        self.sections: list[_Section] = []
        self._replace: dict[int, list[str]] = {}
        self._after: dict[int, list[str]] = {}
        self._tail: list[str] = []
        self._parse()

    def _parse(self) -> None:
        section: _Section | None = None
        option: CfgOption | None = None
        indent_level = 0
        values: dict[int, list[str]] = {}
        for i, raw in enumerate(self.lines):
            body = raw.rstrip("\r\n")
            stripped = body.strip()
            if not stripped or stripped.startswith(("#", ";")):
                if not stripped and option is not None:
                    option.continuation.append(i)
                continue
            indent = len(body) - len(body.lstrip())
            if option is not None and indent > indent_level:
                option.continuation.append(i)
                values[id(option)].append(stripped)
                continue
            indent_level = indent
            mo = _SECTCRE.match(stripped)
            if mo:
                section = _Section(mo.group("header"), i)
                self.sections.append(section)
                option = None
                continue
            mo = _OPTCRE.match(stripped)
            if mo is None or section is None:
                option = None
                continue
            option = CfgOption(section.name, mo.group("option").rstrip(), i)
            values[id(option)] = [mo.group("value").strip()]
            section.options.append(option)
        for sec in self.sections:
            for opt in sec.options:
                # Trailing empty lines belong to the gap after the option, not to it.
                while opt.continuation and not self.lines[opt.continuation[-1]].strip():
                    opt.continuation.pop()
                opt.value = "\n".join(values[id(opt)]).strip()

    # ----------------------------------------------------------------- queries

    def section(self, name: str) -> _Section | None:
        return next((s for s in self.sections if s.name == name), None)

    def option_at(self, line: int) -> CfgOption | None:
        for sec in self.sections:
            for opt in sec.options:
                if opt.line == line and not opt.deleted:
                    return opt
        return None

    def find(
        self, section: str, name: str, *, exclude: CfgOption | None = None
    ) -> CfgOption | None:
        """The live option of ``section`` whose normalised name is ``name``."""
        sec = self.section(section)
        if sec is None:
            return None
        for opt in sec.options:
            if opt is not exclude and not opt.deleted and opt.name == name:
                return opt
        return None

    def continuation_indent(self) -> str:
        for sec in self.sections:
            for opt in sec.options:
                for i in opt.continuation:
                    body = self.lines[i].rstrip("\r\n")
                    if body.strip():
                        return body[: len(body) - len(body.lstrip())]
        return "    "

    # ----------------------------------------------------------------- edits

    def _key_indent(self, opt: CfgOption) -> str:
        body = self.lines[opt.line]
        return body[: len(body) - len(body.lstrip())]

    def rename(self, opt: CfgOption, new: str) -> None:
        """Replace the key of ``opt`` in its line; the delimiter and value stay as they were."""
        body = self.lines[opt.line]
        start = len(self._key_indent(opt))
        self._replace[opt.line] = [body[:start] + new + body[start + len(opt.key) :]]
        opt.key = new

    def delete(self, opt: CfgOption) -> None:
        """Remove the option's lines; comment lines inside its value stay."""
        for i in (opt.line, *opt.continuation):
            self._replace[i] = []
        opt.deleted = True

    def comment_out(self, opt: CfgOption, note: str) -> None:
        """Turn the option's lines into comments under a one-line ``note``: configparser
        skips comment lines, so setuptools reads the file as if the option were deleted,
        and the text stays for its author."""
        indent = self._key_indent(opt)
        for n, i in enumerate((opt.line, *opt.continuation)):
            raw = self.lines[i]
            body = raw.rstrip("\r\n")
            ending = raw[len(body) :]
            stripped = body.strip()
            if not stripped or stripped.startswith(("#", ";")):
                new = [raw]
            else:
                rest = body[len(indent) :] if body.startswith(indent) else body.lstrip()
                new = [f"{indent}# {rest}{ending}"]
            if n == 0:
                new.insert(0, f"{indent}# {note}{self.newline}")
            self._replace[i] = new
        opt.deleted = True

    def replace_option(self, opt: CfgOption, lines: list[tuple[str, str]]) -> None:
        """Replace ``opt`` by ``key = value`` lines, at the same indentation."""
        indent = self._key_indent(opt)
        self.delete(opt)
        self._replace[opt.line] = [f"{indent}{k} = {v}{self.newline}" for k, v in lines]
        sec = self.section(opt.section)
        assert sec is not None
        for k, v in lines:
            sec.options.append(CfgOption(opt.section, k, -1, value=v))

    def drop_section_if_empty(self, name: str) -> bool:
        """Remove the header of ``name`` (and the blank lines under it) when the section has
        no option and no comment left; returns whether it did."""
        sec = self.section(name)
        if sec is None or sec.header < 0 or any(not o.deleted for o in sec.options):
            return False
        later = [s.header for s in self.sections if s.header > sec.header]
        end = min(later) if later else len(self.lines)
        span = range(sec.header + 1, end)
        if any(self.lines[i].strip() and self._replace.get(i) != [] for i in span):
            return False  # a comment (or something else) stays: so does the header
        for i in (sec.header, *span):
            self._replace[i] = []
        self.sections.remove(sec)
        return True

    def append_values(self, opt: CfgOption, values: list[str]) -> None:
        """Add continuation lines at the end of a list-valued option."""
        indent = self.continuation_indent()
        self._insert_after(opt.last, [f"{indent}{v}{self.newline}" for v in values])
        opt.value = "\n".join([opt.value, *values]).strip()

    def add_option(self, section: str, key: str, first: str, values: tuple[str, ...] = ()) -> None:
        """Add ``key = first`` and continuation ``values`` to ``section`` (created if needed)."""
        nl = self.newline
        indent = self.continuation_indent()
        text = [f"{key} =" + (f" {first}" if first else "") + nl]
        text.extend(f"{indent}{v}{nl}" for v in values)
        sec = self.section(section)
        if sec is None:
            sec = _Section(section, -1)
            self.sections.append(sec)
            if self.lines or self._tail:
                text = [nl, f"[{section}]{nl}", *text]
            else:
                text = [f"[{section}]{nl}", *text]
            self._tail.extend(text)
        elif sec.header < 0:
            self._tail.extend(text)
        else:
            real = [o for o in sec.options if o.line >= 0]
            anchor = max((o.last for o in real), default=sec.header)
            self._insert_after(anchor, text)
        sec.options.append(CfgOption(section, key, -1, value="\n".join([first, *values]).strip()))

    def _insert_after(self, line: int, text: list[str]) -> None:
        self._after.setdefault(line, []).extend(text)

    def render(self) -> str:
        out: list[str] = []
        for i, line in enumerate(self.lines):
            replaced = self._replace.get(i)
            if replaced is None:
                out.append(line)
            else:
                out.extend(replaced)
            extra = self._after.get(i)
            if extra:
                if out and not out[-1].endswith(("\n", "\r")):
                    out[-1] += self.newline
                out.extend(extra)
        if self._tail:
            if out and not out[-1].endswith(("\n", "\r")):
                out[-1] += self.newline
            out.extend(self._tail)
        return "".join(out)


# --------------------------------------------------------------------------- the fixes


def _list_values(value: str) -> list[str]:
    """The requirements of a list value, one per line (``;`` starts a marker)."""
    lines = (ln.strip() for ln in value.splitlines())
    return [ln for ln in lines if ln and not ln.startswith("#")]


def _extras(value: str) -> list[str]:
    return [x for x in re.split(r"[\s,]+", value) if x]


@dataclass(slots=True)
class CfgFixer:
    doc: IniDoc
    files: ProjectFiles
    py: SetupPyInfo
    unsafe_fixes: bool
    pbr: bool
    edits: list[Edit] = field(default_factory=list)

    def report(
        self, code: str, opt: CfgOption, message: str, *, safe: bool = True, skipped: bool = False
    ) -> bool:
        """Record an edit; returns whether to make it."""
        status: Status
        if skipped:
            status = "skipped"
        elif safe or self.unsafe_fixes:
            status = "applied"
        else:
            status = "unsafe"
        self.edits.append(
            Edit(
                code=code,
                path=PATH,
                line=opt.line + 1,
                message=message,
                safe=safe,
                status=status,
            )
        )
        return status == "applied"

    def fix_key(self, code: str, opt: CfgOption) -> None:
        """Rename a dash-separated or uppercase key (SC001, SC002) to what setuptools (or
        pbr) reads, or move, convert or comment out a [metadata] key it never read."""
        section, key, name = opt.section, opt.key, opt.name
        if section == "DEFAULT":
            self.report(
                code,
                opt,
                f"`{key}` in [DEFAULT] is inherited by every section; rename it by hand "
                "where it is meant to apply",
                skipped=True,
            )
            return
        if section != "metadata":
            self.rename_to(code, opt, name, why="setuptools reads it under this name")
            return
        if self.pbr:
            # pbr reads [metadata] itself, under its own names (summary, home_page,
            # description_file, requires_dist...), after `key.replace("-", "_")` through a
            # lowercasing ConfigParser: the underscore, lowercase spelling is what it reads.
            why = "pbr reads [metadata] itself and normalises dashes the same way"
            self.rename_to(code, opt, name, why=why)
            return
        if name == "description_file":
            self.description_file(code, opt)
        elif name == "requires_dist":
            self.requires_dist(code, opt)
        elif name in ("provides_extra", "provides_extras"):
            self.provides_extra(code, opt)
        elif name in ("requires_python", "python_requires"):
            self.move_to_options(code, opt, "python_requires")
        elif name in METADATA_RENAMES:
            self.rename_to(code, opt, METADATA_RENAMES[name], why="the name setuptools reads")
        elif name in METADATA_KEYS:
            self.rename_to(code, opt, name, why="setuptools reads it under this name")
        # setuptools ignores the key under either spelling: commenting it out changes
        # nothing it reads, and the dash no longer fails the build
        elif self.report(
            code,
            opt,
            f"`{key}` commented out: setuptools ignores it (and `{name}`), so nothing it "
            "reads changes; replace it by hand if you meant another option",
        ):
            self.doc.comment_out(opt, f"sapper fix: setuptools ignores {key} ({code})")

    def rename_to(self, code: str, opt: CfgOption, new: str, *, why: str) -> None:
        other = self.doc.find(opt.section, new, exclude=opt)
        if other is not None:
            if other.value == opt.value:
                if self.report(
                    code, opt, f"`{opt.key}` duplicates `{other.key}` with the same value; removed"
                ):
                    self.doc.delete(opt)
            else:
                self.report(
                    code,
                    opt,
                    f"`{opt.key}` and `{other.key}` in [{opt.section}] have different values; "
                    "keep the right one by hand",
                    skipped=True,
                )
            return
        if self.report(code, opt, f"`{opt.key}` -> `{new}` ({why})"):
            self.doc.rename(opt, new)

    def description_file(self, code: str, opt: CfgOption) -> None:
        key = opt.key
        long_desc = self.doc.find("metadata", "long_description")
        if long_desc is not None or "long_description" in self.py.keywords:
            where = "setup.cfg" if long_desc is not None else "setup.py"
            if self.report(
                code,
                opt,
                f"`{key}` removed: setuptools never read it (a pbr key), and {where} already "
                "sets long_description",
            ):
                self.doc.delete(opt)
            return
        targets = opt.value.split()
        missing = [t for t in targets if t not in self.files.names]
        if not targets or missing:
            if self.report(
                code,
                opt,
                f"`{key}` removed: setuptools never read it (a pbr key), and it names "
                f"{', '.join(missing) or 'no file'}, which is not in the project",
            ):
                self.doc.delete(opt)
            return
        lines = [("long_description", "file: " + ", ".join(targets))]
        ctype = self.doc.find("metadata", "long_description_content_type")
        ctype_dash = self.doc.find("metadata", "description_content_type")
        if ctype is None and ctype_dash is None:
            lines.append(("long_description_content_type", content_type(targets[0])))
        message = f"`{key}` (a pbr key setuptools never read) -> " + " and ".join(
            f"`{k} = {v}`" for k, v in lines
        )
        if self.report(code, opt, message):
            self.doc.replace_option(opt, lines)

    def requires_dist(self, code: str, opt: CfgOption) -> None:
        from packaging.requirements import InvalidRequirement, Requirement

        key = opt.key
        wanted: list[str] = []
        for_extras: list[str] = []
        for text in _list_values(opt.value):
            try:
                req = Requirement(text)
            except InvalidRequirement:
                self.report(
                    code,
                    opt,
                    f"`{key}` holds {text!r}, which is not a valid requirement; move the "
                    "requirements to [options] install_requires by hand",
                    skipped=True,
                )
                return
            marker = str(req.marker) if req.marker is not None else ""
            (for_extras if "extra" in marker else wanted).append(text)
        kw = self.py.keywords
        if for_extras and "extras_require" not in kw:
            self.report(
                code,
                opt,
                f"`{key}` holds requirements of extras (`extra == ...` markers); move them to "
                "[options.extras_require] by hand",
                skipped=True,
            )
            return
        if not wanted or "install_requires" in kw:
            passed = [k for k in ("install_requires", "extras_require") if k in kw]
            if self.report(
                code,
                opt,
                f"`{key}` removed: setuptools never read it, and setup.py passes "
                f"{' and '.join(passed)}, which is what setuptools uses",
            ):
                self.doc.delete(opt)
            return
        existing = self.doc.find("options", "install_requires")
        have = set(_list_values(existing.value)) if existing is not None else set()
        new = [r for r in wanted if r not in have]
        message = (
            f"`{key}` (never read by setuptools) moved to [options] install_requires"
            + (f", merged ({len(wanted) - len(new)} already there)" if existing else "")
            + ": the built package gains these requirements"
        )
        if not self.report(code, opt, message, safe=False):
            return
        self.doc.delete(opt)
        if not new:
            return
        if existing is not None and existing.line >= 0:
            self.doc.append_values(existing, new)
        else:
            self.doc.add_option("options", "install_requires", "", tuple(new))

    def provides_extra(self, code: str, opt: CfgOption) -> None:
        key = opt.key
        names = _extras(opt.value)
        if "extras_require" in self.py.keywords:
            if self.report(
                code,
                opt,
                f"`{key}` removed: setuptools never read it, and setup.py passes "
                "extras_require, which is what setuptools uses",
            ):
                self.doc.delete(opt)
            return
        missing = [n for n in names if self.doc.find("options.extras_require", n) is None]
        if not missing:
            if self.report(
                code,
                opt,
                f"`{key}` removed: setuptools never read it, and every extra is already in "
                "[options.extras_require]",
            ):
                self.doc.delete(opt)
            return
        if not self.report(
            code,
            opt,
            f"`{key}` (never read by setuptools) -> [options.extras_require] entries "
            f"{', '.join(missing)} with no requirements: the built package gains these extras",
            safe=False,
        ):
            return
        self.doc.delete(opt)
        for extra in missing:
            self.doc.add_option("options.extras_require", extra, "")

    def move_to_options(self, code: str, opt: CfgOption, new: str) -> None:
        key = opt.key
        if new in self.py.keywords or self.doc.find("options", new) is not None:
            where = "setup.py" if new in self.py.keywords else "[options]"
            if self.report(
                code, opt, f"`{key}` removed: setuptools never read it, and {where} sets {new}"
            ):
                self.doc.delete(opt)
            return
        if self.report(
            code,
            opt,
            f"`{key}` (ignored in [metadata]) moved to [options] {new}: the built package "
            "gains this field",
            safe=False,
        ):
            self.doc.delete(opt)
            self.doc.add_option("options", new, opt.value)


def fix_setup_cfg(
    files: ProjectFiles,
    findings: Sequence[Finding],
    *,
    py_info: SetupPyInfo,
    unsafe_fixes: bool = False,
    today: _dt.date | None = None,
) -> tuple[bytes | None, list[Edit]]:
    """Fix ``findings`` (those of fixable rules in setup.cfg, as ``sapper check`` reported
    them; a suppressed finding is not among them): each goes to its rule's ``Fix.apply``
    with the option at its line.

    Returns the new content (None when the file cannot be edited) and the edits.
    """
    from ..rules import Context, get_rule
    from ..versions import catalogue

    data = files.files.get(PATH)
    if data is None or not findings:
        return None, []
    ctx = Context(
        files=files,
        catalogue=catalogue(),
        today=today or _dt.datetime.now(tz=_dt.timezone.utc).date(),
    )
    # Whatever was selected, a file configparser rejects is not edited: the rules that say
    # so are asked.
    blocking = sorted(
        (
            f
            for code in _BLOCKING
            if (rule := get_rule(code)) is not None
            for f in rule.check(ctx)
            if f.path == PATH
        ),
        key=lambda f: (f.line or 0, f.column or 0, f.code),
    )
    if blocking:
        return None, [
            Edit(
                code=f.code,
                path=PATH,
                line=f.line,
                message=f"setup.cfg not edited: {f.text}; fix this first",
                status="skipped",
            )
            for f in blocking[:1]
        ]
    doc = IniDoc(data.decode("utf-8"))
    pbr = py_info.pbr or any(doc.section(name) is not None for name in ("pbr", "files"))
    fixer = CfgFixer(doc=doc, files=files, py=py_info, unsafe_fixes=unsafe_fixes, pbr=pbr)
    for finding in sorted(findings, key=lambda f: f.line or 0):
        opt = doc.option_at((finding.line or 0) - 1)
        rule = get_rule(finding.code)
        if opt is None or rule is None or rule.fix is None:
            continue
        rule.fix.apply(fixer, finding, opt)
    return doc.render().encode("utf-8"), fixer.edits
