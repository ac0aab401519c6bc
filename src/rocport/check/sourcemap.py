"""Map a line of a ported (HIP) file back to its CUDA original, and name what the port changed.

Three sources, best first:

- the translations themselves (:meth:`FileMap.from_translation`; ``rocport port --check``
  passes them): the output keeps the input's lines 1:1 except
  :attr:`~rocport.port.model.Translation.inserted_lines`, and the references say which CUDA
  names sit on each input line;
- a ``rocport port --json`` report: it names each output file's source file, and its issues
  (unsupported and unknown names, with their input lines);
- a CUDA tree (``--cuda-root``) with the same relative paths (``.cu`` may have become ``.hip``).

For the last two the line correspondence comes from aligning the two texts line by line
(:class:`difflib.SequenceMatcher`), and the changed names from comparing the identifiers of
corresponding lines outside comments and literals.
"""

from __future__ import annotations

import difflib
import json
import re
from bisect import bisect_right
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from rocport.errors import InputError
from rocport.lexer import blank_non_code

_IDENT = re.compile(r"[^\W\d]\w*")
_INCLUDE = re.compile(r'^\s*#\s*include\s*(<[^>\n]*>|"[^"\n]*")')
#: Suffixes a CUDA source may have had before the port renamed it.
_CUDA_SUFFIXES = (".cu", ".cuh", ".cpp", ".cc", ".cxx", ".h", ".hpp")


@dataclass(frozen=True, slots=True)
class ChangedName:
    """A CUDA name on a source line, and what the port made of it."""

    cuda: str
    hip: str | None  # None: left as written (unsupported or unknown)
    outcome: str = "translated"  # "translated", "removed", "unsupported" or "unknown"
    note: str | None = None

    def to_dict(self) -> dict:
        return {"cuda": self.cuda, "hip": self.hip, "outcome": self.outcome, "note": self.note}


@dataclass(slots=True)
class FileMap:
    """How one ported file's lines correspond to its CUDA source."""

    cuda_path: str
    inserted_lines: tuple[int, ...] = ()  # output lines with no input line (sorted)
    line_map: dict[int, int | None] | None = None  # explicit output -> input lines (from a diff)
    names: dict[int, list[ChangedName]] = field(default_factory=dict)  # input line -> names

    def cuda_line(self, line: int) -> int | None:
        """The CUDA line that output ``line`` came from; None for a line the port inserted."""
        if self.line_map is not None:
            return self.line_map.get(line)
        index = bisect_right(self.inserted_lines, line)
        if index and self.inserted_lines[index - 1] == line:
            return None
        return line - index

    @classmethod
    def from_translation(cls, cuda_path: str, translation) -> FileMap:
        """The exact map of one :class:`~rocport.port.model.Translation` of ``cuda_path``."""
        names: dict[int, list[ChangedName]] = {}
        for ref in translation.references:
            outcome = getattr(ref.outcome, "value", ref.outcome)
            if outcome == "translated" and ref.hip == ref.name:
                continue  # kept as written on purpose (Thrust, NCCL names): nothing changed
            hip = ref.hip if outcome == "translated" else None
            names.setdefault(ref.line, []).append(ChangedName(ref.name, hip, outcome, ref.note))
        return cls(cuda_path, tuple(sorted(translation.inserted_lines)), names=names)

    def changed_on(self, cuda_line: int | None) -> list[ChangedName]:
        return list(self.names.get(cuda_line, ())) if cuda_line is not None else []


class SourceMap:
    """Ported file (relative to the checked tree, ``/`` separators) -> :class:`FileMap`."""

    def __init__(self, files: Mapping[str, FileMap] | None = None) -> None:
        self.files: dict[str, FileMap] = dict(files or {})

    def __len__(self) -> int:
        return len(self.files)

    def get(self, relpath: str) -> FileMap | None:
        return self.files.get(relpath)

    @classmethod
    def from_pairs(cls, pairs: Mapping[str, Path], tree: Path) -> SourceMap:
        """``{output relpath: CUDA file}``: align each pair of texts (see the module docstring)."""
        files = {}
        for out, cuda in pairs.items():
            try:
                hip_text = (tree / out).read_text(encoding="utf-8", errors="replace")
                cuda_text = Path(cuda).read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            files[out] = align(str(cuda), cuda_text, hip_text)
        return cls(files)

    @classmethod
    def from_cuda_root(cls, tree: Path, cuda_root: Path, outputs: Iterable[str]) -> SourceMap:
        """Pair each output with the same-named file under ``cuda_root`` (any CUDA suffix)."""
        if not cuda_root.is_dir():
            raise InputError(f"--cuda-root is not a folder: {cuda_root}")
        pairs = {}
        for out in outputs:
            cuda = _same_named(cuda_root, out)
            if cuda is not None:
                pairs[out] = cuda
        return cls.from_pairs(pairs, tree)

    @classmethod
    def from_report(cls, report_path: Path, tree: Path) -> SourceMap:
        """Read a ``rocport port --json`` report: its ``source`` root and per-file ``output``."""
        try:
            data = json.loads(Path(report_path).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(f"cannot read source map {report_path}: {exc}") from exc
        except json.JSONDecodeError as exc:
            raise InputError(f"{report_path} is not JSON: {exc.msg} (line {exc.lineno})") from exc
        if not isinstance(data, dict) or not isinstance(data.get("files"), list):
            raise InputError(f"{report_path} is not a `rocport port --json` report (no files list)")
        # Relative paths in the report are relative to where `rocport port` ran: try the
        # current folder and the report's folder, and output paths also under the output root.
        bases = [Path.cwd(), Path(report_path).resolve().parent]
        source_root = _existing([Path(data.get("source") or ".")], bases, is_dir=True)
        output_root = Path(data["output"]) if data.get("output") else tree
        tree = tree.resolve()
        pairs: dict[str, Path] = {}
        issues: dict[str, list[dict]] = {}
        for item in data["files"]:
            if not isinstance(item, dict) or not item.get("output") or not item.get("path"):
                continue
            output = _existing(
                [Path(item["output"])], [*bases, *(b / output_root for b in bases), tree]
            ).resolve()
            try:
                rel = output.relative_to(tree).as_posix()
            except ValueError:
                continue  # not part of the tree being checked
            pairs[rel] = _existing([source_root / item["path"]], bases)
            issues[rel] = [i for i in item.get("issues") or () if isinstance(i, dict)]
        source_map = cls.from_pairs(pairs, tree)
        for rel, found in issues.items():
            file_map = source_map.files.get(rel)
            if file_map is None:
                continue
            for issue in found:
                if isinstance(issue.get("line"), int) and issue.get("name"):
                    _add_name(
                        file_map.names,
                        issue["line"],
                        ChangedName(
                            issue["name"],
                            None,
                            str(issue.get("outcome") or "unsupported"),
                            issue.get("note"),
                        ),
                    )
        return source_map


def _existing(paths: list[Path], bases: list[Path], *, is_dir: bool = False) -> Path:
    """The first of ``paths`` (absolute, or under one of ``bases``) that exists, else the first."""
    for path in paths:
        for candidate in [path] if path.is_absolute() else [b / path for b in bases]:
            if candidate.is_dir() if is_dir else candidate.is_file():
                return candidate
    first = paths[0]
    return first if first.is_absolute() else bases[0] / first


def _add_name(names: dict[int, list[ChangedName]], line: int, name: ChangedName) -> None:
    bucket = names.setdefault(line, [])
    if all(existing.cuda != name.cuda for existing in bucket):
        bucket.append(name)
    else:  # a precise record (unsupported, with a note) beats one guessed from the diff
        bucket[:] = [name if e.cuda == name.cuda else e for e in bucket]


def _same_named(cuda_root: Path, out: str) -> Path | None:
    direct = cuda_root / out
    if direct.is_file():
        return direct
    stem = direct.with_suffix("")
    for suffix in _CUDA_SUFFIXES:
        candidate = stem.with_suffix(suffix)
        if candidate.is_file():
            return candidate
    return None


def align(cuda_path: str, cuda_text: str, hip_text: str) -> FileMap:
    """Line correspondence and changed names between a CUDA text and its port."""
    cuda_raw, hip_raw = cuda_text.splitlines(), hip_text.splitlines()
    cuda_lines = blank_non_code(cuda_text).splitlines()
    hip_lines = blank_non_code(hip_text).splitlines()
    line_map: dict[int, int | None] = {}
    names: dict[int, list[ChangedName]] = {}
    matcher = difflib.SequenceMatcher(None, cuda_lines, hip_lines, autojunk=False)
    for op, c0, c1, h0, h1 in matcher.get_opcodes():
        if op == "equal":
            line_map.update({h0 + k + 1: c0 + k + 1 for k in range(h1 - h0)})
            continue
        if op == "delete":
            continue
        paired = min(c1 - c0, h1 - h0)  # rewritten lines, in order; the rest were inserted
        for k in range(h1 - h0):
            line_map[h0 + k + 1] = c0 + k + 1 if k < paired else None
        for k in range(paired):
            old_include = _INCLUDE.match(cuda_raw[c0 + k])
            new_include = _INCLUDE.match(hip_raw[h0 + k])
            if old_include and new_include:
                _add_name(names, c0 + k + 1, ChangedName(old_include[1], new_include[1]))
                continue
            for name in _renames(cuda_lines[c0 + k], hip_lines[h0 + k]):
                _add_name(names, c0 + k + 1, name)
    return FileMap(cuda_path, line_map=line_map, names=names)


def _renames(cuda_line: str, hip_line: str) -> list[ChangedName]:
    """Identifiers of ``cuda_line`` that the port replaced, paired in order with their new names."""
    before = _IDENT.findall(cuda_line)
    after = _IDENT.findall(hip_line)
    matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
    changed = []
    for op, b0, b1, a0, a1 in matcher.get_opcodes():
        if op in ("replace", "delete"):
            for k in range(b1 - b0):
                hip = after[a0 + k] if op == "replace" and a0 + k < a1 else None
                changed.append(ChangedName(before[b0 + k], hip, "translated" if hip else "removed"))
    return changed
