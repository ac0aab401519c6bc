"""What rules see of one file: the text, shared precomputed views and finding helpers.

Everything expensive (blanked code, brace pairs, function and loop spans, ``#define`` values,
the Python AST) is computed once per file, on first use, and shared by all rules.
"""

from __future__ import annotations

import ast
import re
import string
from bisect import bisect_right
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache, cached_property, lru_cache
from itertools import accumulate

from rocport._diagnostics import (
    Applicability,
    Edit,
    Finding,
    Fix,
    Location,
    Severity,
)
from rocport.scan import cexpr
from rocport.scan.blank import blank_non_code
from rocport.scan.literals import contains, offsets
from rocport.scan.preprocessor import Directive, directives
from rocport.scan.registry import Rule


class _Source:
    """Shared part of the CUDA and Python contexts."""

    def __init__(self, path: str, text: str) -> None:
        self.path = path
        self.text = text
        self.rule: Rule | None = None  # set by the engine before each rule runs
        # line starts met so far (offsets, and their 1-based line numbers), for location()
        self._known_starts = [0]
        self._known_lines = [1]

    @cached_property
    def line_starts(self) -> list[int]:
        """Offsets at which each line starts (same result as ``_diagnostics.line_starts``)."""
        parts = self.text.split("\n")
        return [0, *accumulate(map((1).__add__, map(len, parts[:-1])))]

    def line_and_start(self, offset: int) -> tuple[int, int]:
        """1-based line of ``offset`` and the offset where that line starts.

        Newlines are counted from the nearest line start already known, so a file with a few
        findings never has all its line starts computed."""
        starts, lines = self._known_starts, self._known_lines
        index = bisect_right(starts, offset) - 1
        known = starts[index]
        text = self.text
        line = lines[index] + text.count("\n", known, offset)
        start = text.rfind("\n", known, offset) + 1 or known
        if start != known:
            starts.insert(index + 1, start)
            lines.insert(index + 1, line)
        return line, start

    def line_text(self, line: int) -> str:
        """The text of a 1-based line that :meth:`line_and_start` has met."""
        starts, lines = self._known_starts, self._known_lines
        index = bisect_right(lines, line) - 1
        start = starts[index]
        if lines[index] != line:
            start = self.line_starts[line - 1]
        end = self.text.find("\n", start)
        return self.text[start:] if end == -1 else self.text[start:end]

    def location(self, offset: int) -> Location:
        """1-based line and column of ``offset`` (as ``_diagnostics.offset_to_line_col``)."""
        line, start = self.line_and_start(offset)
        return Location(self.path, line, offset - start + 1)

    def finding(
        self,
        offset: int,
        message: str,
        fix: Fix | None = None,
        *,
        severity: Severity | None = None,
        **extra,
    ) -> Finding:
        """A finding of the running rule at character ``offset`` (its severity unless given)."""
        assert self.rule is not None
        return Finding(
            self.rule.id, severity or self.rule.severity, self.location(offset), message, fix, extra
        )

    @staticmethod
    def replace(
        start: int,
        end: int,
        text: str,
        title: str,
        applicability: Applicability = Applicability.SAFE,
    ) -> Fix:
        """A fix made of one replacement of ``[start, end)``."""
        return Fix(title, (Edit(start, end, text),), applicability)

    @staticmethod
    def hint(title: str) -> Fix:
        """A fix that only describes what to do."""
        return Fix(title, (), Applicability.DISPLAY_ONLY)


@dataclass(slots=True)
class Function:
    """A ``__global__`` or ``__device__`` function definition with a body: its name, spans
    (offsets) and whether it is a kernel."""

    name: str
    start: int  # first qualifier
    params: tuple[int, int]  # inside of ( ... )
    body: tuple[int, int]  # from { to } inclusive
    is_kernel: bool  # __global__


@dataclass(slots=True)
class SharedArray:
    """One ``__shared__`` declarator: where it is, its element type, name and dimensions."""

    offset: int  # of the name
    type: str
    name: str
    dims: tuple[tuple[int, int], ...]  # inside of each [ ... ]
    extern: bool
    size: int | None  # bytes, when every part is a known constant


@dataclass(slots=True)
class Loop:
    """A ``for``/``while``/``do`` loop: keyword offset, header span, body span."""

    keyword: str
    start: int
    header: tuple[int, int]  # inside of ( ... ); empty for do
    body: tuple[int, int]


_NOT_A_NAME = frozenset(
    {
        "__launch_bounds__",
        "__attribute__",
        "__cluster_dims__",
        "__declspec",
        "alignas",
        "decltype",
        "__align__",
        "template",
        "if",
        "while",
        "for",
        "switch",
        "return",
        "sizeof",
    }
)
_TRAILING = re.compile(r"(?:(?:const|noexcept|override|final|volatile)\b\s*|->[^{;]*)+")
_QUALIFIER = re.compile(r"__\w+__")
#: the usual definition head, ``qualifiers type name(params) {`` with no brackets before the
#: name and none inside the parameters; anything else takes the general path of _function_at
_SIMPLE_HEAD = re.compile(r"[^;{}()<>]*\b([A-Za-z_]\w*)[ \t\r\n]*\(([^()]*)\)[ \t\r\n]*\{")
#: the same with one ``__launch_bounds__(...)`` before the name
_BOUNDED_HEAD = re.compile(
    r"[^;{}()<>]*\b__launch_bounds__[ \t\r\n]*\([^()]*\)"
    r"[^;{}()<>]*\b([A-Za-z_]\w*)[ \t\r\n]*\(([^()]*)\)[ \t\r\n]*\{"
)
#: ``__`` words that rules and views look for (every CUDA trigger that starts with ``__`` is
#: here; tests/scan/test_triggers.py checks it), all found by one search of the code
_UNDERSCORED_INDEX = (
    "__global__",
    "__device__",
    "__shared__",
    "__launch_bounds__",
    "__activemask",
    "__ballot",
    "__lanemask",
    "__match_",
    "__nanosleep",
    "__nv_fp8",
    "__pipeline_",
    "__shfl",
    "__any_sync",
    "__all_sync",
    "__uni_sync",
    "__syncwarp",
    "__reduce_",
)
_UNDERSCORED_WORDS = frozenset(_UNDERSCORED_INDEX)
#: ``__`` and then one of the words (longest first), matched without taking the word, so that
#: no occurrence is skipped; a match is the longest word found at that place
_UNDERSCORED = re.compile(
    "__(?=("
    + "|".join(re.escape(w[2:]) for w in sorted(_UNDERSCORED_INDEX, key=len, reverse=True))
    + "))"
)
#: each word -> the words of the index that start it (itself included): all found where it is
_PREFIXES_OF = {
    word[2:]: [other for other in _UNDERSCORED_INDEX if word.startswith(other)]
    for word in _UNDERSCORED_INDEX
}
_LOOP_HEAD = {
    "for": re.compile(r"for\s*\("),
    "while": re.compile(r"while\s*\("),
    "do": re.compile(r"do\s*\{"),
}
_DEFINE = re.compile(r"define[ \t]+(\w+)(?![\w(])[ \t]*(.*?)[ \t]*$", re.MULTILINE)
_DECL_NOISE = re.compile(
    r"__align__\s*\([^)]*\)|alignas\s*\([^)]*\)|\b(?:extern|static|"
    r"volatile|const|__restrict__)\b"
)
_DECL_TYPE = re.compile(
    r"\s*((?:unsigned\s+|signed\s+|long\s+|short\s+)*"
    r"[A-Za-z_][\w:]*(?:\s*<[^;<>]*>)?)"
)
_LAUNCH_CALL = re.compile(r"((?:hip|cuda)Launch(?:KernelGGL|Kernel|CooperativeKernel))\s*\(")
_DIM = re.compile(r"\[([^\]]*)\]")
_DECLARATOR = re.compile(r"\s*(?:\*\s*)*(?P<name>[A-Za-z_]\w*)\s*(?P<dims>(?:\[[^\]]*\]\s*)*)")
_DIM3_EXTENTS = re.compile(r"(?:dim3\s*)?[({]([^(){}]*)[)}]")
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
_DIM3 = re.compile(r"dim3\s+(\w+)\s*(?:=\s*(?:dim3\s*)?)?[({]([^(){};]*)[)}]\s*;")
_CONSTANT = re.compile(
    r"const(?:expr)?\s+(?:static\s+)?(?:(?:unsigned|signed|long|short|int|size_t|auto|"
    r"u?int(?:8|16|32|64)_t)\s+)+(\w+)\s*=\s*([^;,{}]+);"
)


class CudaSource(_Source):
    """A C/C++/CUDA/HIP file as rules see it."""

    def __init__(self, path: str, text: str) -> None:
        super().__init__(path, text)
        self._found: dict[str, list[int]] = {}  # find_all, per literal
        self._in_bodies: dict[str, list[int]] = {}  # find_in_bodies, per literal
        self._present: dict[str, bool] = {}  # has, per literal
        self._evaluated: dict[str, int | None] = {}  # evaluate, per expression

    @cached_property
    def code(self) -> str:
        """The text with comments and literal contents blanked (same length)."""
        return blank_non_code(self.text)

    @cached_property
    def directives(self) -> list[Directive]:
        """The directives of the code as first read (before dead branches are blanked: a
        directive whose ``#`` :attr:`code` no longer holds lies in one)."""
        code = self.code
        return directives(code) if "#" in code else []

    @cached_property
    def is_hip(self) -> bool:
        """Whether the file is already HIP (so fixes can use HIP-only spellings)."""
        return self.path.endswith(".hip") or "hip_runtime" in self.text or "hipLaunch" in self.code

    # -- structure -----------------------------------------------------------------------
    @cached_property
    def brace_pairs(self) -> dict[int, int]:
        """Offset of each ``{`` -> offset of its matching ``}`` (unbalanced ones are dropped)."""
        pairs: dict[int, int] = {}
        stack: list[int] = []
        code = self.code
        pos = -1
        find_open, find_close = code.find, code.find
        next_open, next_close = find_open("{"), find_close("}")
        while next_open != -1 or next_close != -1:
            if next_close == -1 or (next_open != -1 and next_open < next_close):
                stack.append(next_open)
                pos = next_open
                next_open = find_open("{", pos + 1)
            else:
                if stack:
                    pairs[stack.pop()] = next_close
                pos = next_close
                next_close = find_close("}", pos + 1)
        return pairs

    def block_end(self, open_brace: int) -> int:
        """Offset just past the ``}`` matching ``open_brace`` (end of text when unbalanced)."""
        close = self.brace_pairs.get(open_brace)
        return len(self.code) if close is None else close + 1

    def paren_end(self, open_paren: int) -> int:
        """Offset of the ``)`` matching the ``(`` at ``open_paren`` (-1 when unbalanced)."""
        find = self.code.find
        depth, pos = 0, open_paren
        next_open = find("(", pos + 1)
        while True:
            close = find(")", pos + 1)
            if close == -1:
                return -1
            while next_open != -1 and next_open < close:
                depth += 1
                next_open = find("(", next_open + 1)
            if depth == 0:
                return close
            depth -= 1
            pos = close

    def skip_space(self, pos: int) -> int:
        code = self.code
        while pos < len(code) and code[pos] in " \t\r\n\\":
            pos += 1
        return pos

    @cached_property
    def functions(self) -> list[Function]:
        """``__global__`` and ``__device__`` function definitions, in order."""
        found: list[Function] = []
        code = self.code
        pairs = self.brace_pairs
        simple_head, bounded_head = _SIMPLE_HEAD.match, _BOUNDED_HEAD.match
        starts = sorted(self.find_all("__global__") + self.find_all("__device__"))
        covered = -1
        last = len(code) - 1
        for start in starts:
            if start < covered or (start and (code[start - 1].isalnum() or code[start - 1] == "_")):
                continue
            simple = simple_head(code, start) or bounded_head(code, start)
            if simple is not None:  # the usual head, without the general path's steps
                whole, (name_start, name_end), params = simple.regs
                name = code[name_start:name_end]
                if name not in _NOT_A_NAME and params[0] <= start + 4000:
                    brace = whole[1] - 1
                    covered = pairs.get(brace, last)
                    found.append(
                        Function(
                            name,
                            start,
                            params,
                            (brace, covered),
                            code.startswith("__global__", start)
                            or self._is_kernel(start, name_start),
                        )
                    )
                    continue
            function = self._function_at(start)  # the general path
            if function is not None:
                found.append(function)
                covered = function.body[1]
        return found

    @cached_property
    def device_code(self) -> str:
        """The bodies of the ``__global__``/``__device__`` functions, one after the other with
        a newline between them: all a rule that reports only inside them needs to search."""
        code = self.code
        return "\n".join([code[start : end + 1] for start, end in (f.body for f in self.functions)])

    @cached_property
    def device_starts(self) -> list[int]:
        """Where each function body (of :attr:`functions`) starts in :attr:`device_code`."""
        starts, at = [], 0
        for start, end in (f.body for f in self.functions):
            starts.append(at)
            at += end + 2 - start  # the body, braces included, and the newline after it
        return starts

    def find_in_bodies(self, literal: str) -> list[int]:
        """Offsets in the code of every occurrence of ``literal`` inside a function body,
        found in :attr:`device_code` (a third of a file, as most files go; cached)."""
        hits = self._in_bodies.get(literal)
        if hits is None:
            hits = self._in_bodies[literal] = [
                self.code_offset(at) for at in offsets(self.device_code, literal)
            ]
        return hits

    def code_offset(self, device_offset: int) -> int:
        """The offset in :attr:`code` of an offset in :attr:`device_code`."""
        starts = self.device_starts
        index = bisect_right(starts, device_offset) - 1
        return self.functions[index].body[0] + device_offset - starts[index]

    def has(self, literal: str) -> bool:
        """Whether ``literal`` occurs in the code (cached, and shared with :meth:`find_all`)."""
        known = self._present.get(literal)
        if known is None:
            hits = self._found.get(literal)
            if hits is None and literal in _UNDERSCORED_WORDS:
                hits = self._find_all(literal)
            known = bool(hits) if hits is not None else contains(self.code, literal)
            self._present[literal] = known
        return known

    def find_all(self, literal: str) -> list[int]:
        """Offsets of every occurrence of ``literal`` in the code (cached per literal)."""
        hits = self._found.get(literal)
        return self._find_all(literal) if hits is None else hits

    def _find_all(self, literal: str) -> list[int]:
        """:meth:`find_all` of a literal not found yet: an indexed ``__`` word is found with
        all the others, in one search; a literal :meth:`has` knows to be absent is not
        searched for."""
        if literal in _UNDERSCORED_WORDS:
            self._index_underscored()
            return self._found[literal]
        hits: list[int] = []
        if self._present.get(literal) is not False:
            hits = offsets(self.code, literal)
        self._found[literal] = hits
        return hits

    def _index_underscored(self) -> None:
        """:meth:`find_all` of every ``__`` word of ``_UNDERSCORED_INDEX``, in one search (a
        search per word would read the whole code each time)."""
        found = {literal: [] for literal in _UNDERSCORED_INDEX}
        for match in _UNDERSCORED.finditer(self.code):
            at = match.start()
            for literal in _PREFIXES_OF[match.group(1)]:
                found[literal].append(at)
        self._found.update(found)

    def whole_literals(
        self, literals: tuple[str, ...], anchors: tuple[str, ...]
    ) -> list[tuple[int, str]]:
        """``(offset, literal)`` for what ``re.finditer`` of ``(?:literals, longest
        first)(?!\\w)`` finds in the code, found by ``str.find`` of the ``anchors`` (each
        literal contains one) rather than by a regex tried at every character."""
        code = self.code
        candidates: list[tuple[int, int, str]] = []
        for anchor, placed in _anchored(literals, anchors):
            hits = self.find_all(anchor)
            for literal, offset in placed if hits else ():
                for at in hits:
                    if code.startswith(literal, at - offset) and at >= offset:
                        candidates.append((at - offset, -len(literal), literal))
        found: list[tuple[int, str]] = []
        consumed = 0
        for start, _, literal in sorted(candidates):
            end = start + len(literal)
            if start >= consumed and not (
                end < len(code) and (code[end].isalnum() or code[end] == "_")
            ):
                found.append((start, literal))
                consumed = end
        return found

    def matches_from(self, pattern: re.Pattern[str], starts: Iterable[int]) -> list[re.Match[str]]:
        """What ``pattern.finditer(code)`` finds, trying ``pattern`` only at ``starts``: offsets
        (in order) among which every match begins, found with ``str.find``, so that no regex is
        tried at every character. ``pattern`` must not match the empty string."""
        found = []
        end = 0
        code = self.code
        match = pattern.match
        for start in starts:
            if start >= end:
                hit = match(code, start)
                if hit is not None:
                    found.append(hit)
                    end = hit.end()
        return found

    def matches_at(
        self, literal: str, pattern: re.Pattern[str], word: bool = True
    ) -> list[re.Match[str]]:
        """``pattern`` matched at every occurrence of ``literal`` (that starts a word, unless
        ``word`` is off)."""
        match = pattern.match
        found = []
        for pos in self.find_all(literal):
            if not word or self.starts_word(pos):
                hit = match(self.code, pos)
                if hit is not None:
                    found.append(hit)
        return found

    def prefixed_matches(self, literal: str, pattern: re.Pattern[str]) -> list[re.Match[str]]:
        """``pattern`` (which starts with ``hip`` or ``cuda``, then ``literal``) matched at each
        word-starting ``cuda``/``hip`` right before ``literal``: a regex search for
        ``\\b(?:cuda|hip)...`` would be tried at every character."""
        found = []
        code = self.code
        for pos in self.find_all(literal):
            for prefix in ("cuda", "hip"):
                start = pos - len(prefix)
                if code.startswith(prefix, start) and self.starts_word(start):
                    hit = pattern.match(code, start)
                    if hit is not None:
                        found.append(hit)
        return found

    def _function_at(self, start: int) -> Function | None:
        code = self.code
        pos = start
        limit = min(len(code), start + 4000)
        while pos < limit:
            open_paren = code.find("(", pos, limit)
            if open_paren == -1:
                return None
            stop = code.find(";", pos, open_paren)
            if stop != -1 or code.find("{", pos, open_paren) != -1:
                return None
            name = _name_before(code, open_paren, pos)
            close_paren = self.paren_end(open_paren)
            if close_paren < 0:
                return None
            if name is None or name.group(1) in _NOT_A_NAME:
                pos = close_paren + 1
                continue
            after = self.skip_space(close_paren + 1)
            # trailing qualifiers: const, noexcept, override, -> type
            tail = _TRAILING.match(code, after)
            brace = self.skip_space(tail.end() if tail else after)
            if brace >= len(code) or code[brace] != "{":
                return None
            return Function(
                name.group(1),
                start,
                (open_paren + 1, close_paren),
                (brace, self.block_end(brace) - 1),
                self._is_kernel(start, name.start()),
            )
        return None

    def _is_kernel(self, start: int, name: int) -> bool:
        """Whether ``__global__`` is among the qualifiers between ``start`` and the name."""
        code = self.code
        if code.startswith("__global__", start):
            return True
        return code.find("__global__", start, name) != -1 and "__global__" in _QUALIFIER.findall(
            code, start, name
        )

    @cached_property
    def _function_starts(self) -> list[int]:
        return [f.body[0] for f in self.functions]

    def function_at(self, offset: int) -> Function | None:
        """The ``__global__``/``__device__`` function whose body contains ``offset``."""
        functions = self.functions
        index = bisect_right(self._function_starts, offset) - 1
        if index >= 0 and offset <= functions[index].body[1]:
            return functions[index]
        return None

    def in_device_code(self, offset: int) -> bool:
        return self.function_at(offset) is not None

    def is_word_at(self, start: int, end: int) -> bool:
        """Whether ``code[start:end]`` is a whole word (not part of a longer identifier)."""
        code = self.code
        return not (
            (start and (code[start - 1].isalnum() or code[start - 1] in "_$"))
            or (end < len(code) and (code[end].isalnum() or code[end] in "_$"))
        )

    def starts_word(self, pos: int) -> bool:
        """Whether no identifier character comes right before ``pos``."""
        return not pos or not (self.code[pos - 1].isalnum() or self.code[pos - 1] in "_$")

    def loop_at(self, start: int, keyword: str, open_paren: int) -> Loop | None:
        """The ``for``/``while`` loop whose header opens at ``open_paren``."""
        code = self.code
        close_paren = self.paren_end(open_paren)
        if close_paren < 0:
            return None
        body_start = self.skip_space(close_paren + 1)
        if keyword == "while" and code.startswith(";", body_start):
            return None  # the tail of a do-while
        if code.startswith("{", body_start):
            body_end = self.block_end(body_start)
        else:
            semicolon = code.find(";", body_start)
            body_end = len(code) if semicolon == -1 else semicolon + 1
        return Loop(keyword, start, (open_paren + 1, close_paren), (body_start, body_end))

    @cached_property
    def _loop_heads(self) -> list[tuple[int, str, int]]:
        """``(keyword offset, keyword, offset of its ( or {)`` of every loop, in order."""
        code = self.code
        heads = [
            (match.start(), keyword, match.end() - 1)
            for keyword, head in _LOOP_HEAD.items()
            for match in head.finditer(code)
            if self.is_word_at(match.start(), match.start() + len(keyword))
        ]
        heads.sort()
        return heads

    def enclosing_loop(self, offset: int) -> Loop | None:
        """The innermost ``for``/``while``/``do`` loop whose header or body contains ``offset``:
        of the loops that start before it, the nearest that reaches past it (only those are
        parsed)."""
        heads = self._loop_heads
        for index in range(bisect_right(heads, (offset, "\uffff")) - 1, -1, -1):
            start, keyword, opening = heads[index]
            if keyword == "do":
                loop = Loop("do", start, (opening, opening), (opening, self.block_end(opening)))
            else:
                loop = self.loop_at(start, keyword, opening)
            if loop is not None and offset < loop.body[1]:
                return loop
        return None

    @cached_property
    def shared_arrays(self) -> list[SharedArray]:
        """Every ``__shared__`` declarator with its size in bytes where it can be computed."""
        if not self.has("__shared__"):
            return []
        found: list[SharedArray] = []
        code = self.code
        for at in self.find_all("__shared__"):
            statement_start = at + len("__shared__")
            end = code.find(";", statement_start)
            if end == -1 or (at and (code[at - 1].isalnum() or code[at - 1] == "_")):
                continue
            statement = code[statement_start:end]
            parsed = _shared_statement(statement)
            if parsed is None:
                continue
            bracket, type_name, element, declarators = parsed
            extern = (
                code.find("extern", max(0, at - 40), at) != -1
                or statement.find("extern", 0, len(statement) if bracket == -1 else bracket) != -1
            )
            for name_at, name, extents in declarators:
                dims = []
                size = element
                for dim_at, extent in extents:
                    start = statement_start + dim_at
                    dims.append((start, start + len(extent)))
                    value = self.evaluate(extent) if extent.strip() else None
                    size = None if size is None or value is None else size * value
                found.append(
                    SharedArray(
                        statement_start + name_at, type_name, name, tuple(dims), extern, size
                    )
                )
        return found

    def launch_configs(self) -> list[tuple[int, str, tuple[int, int]]]:
        """Kernel launches as ``(offset, kind, block-argument span)``.

        ``kind`` is ``"chevron"`` for ``<<<grid, block, ...>>>`` and the function name for
        ``hipLaunchKernelGGL``/``cudaLaunchKernel``/``hipLaunchKernel``.
        """
        code = self.code
        found = []
        for at in self.find_all("<<<"):
            end = code.find(">>>", at + 3)
            if end == -1:
                continue
            args = _split_top_level(code[at + 3 : end])
            if len(args) >= 2:
                found.append((at, "chevron", (at + 3 + args[1][0], at + 3 + args[1][1])))
        for match in self.prefixed_matches("Launch", _LAUNCH_CALL):
            close = self.paren_end(match.end() - 1)
            if close < 0:
                continue
            args = _split_top_level(code[match.end() : close])
            index = 2  # (kernel, grid, block, ...) for all of them
            if len(args) > index:
                start = match.end() + args[index][0]
                found.append((match.start(), match.group(1), (start, match.end() + args[index][1])))
        return found

    def block_threads(self, expr: str) -> int | None:
        """Threads per block described by ``expr``: a number, constant, ``dim3(...)`` or a
        ``dim3`` variable declared with constant extents in this file."""
        expr = expr.strip()
        inline = _DIM3_EXTENTS.fullmatch(expr)
        if inline:
            return self._product(inline.group(1))
        if _IDENTIFIER.fullmatch(expr):
            declared = self.dim3_variables.get(expr)
            if declared is not None:
                return self._product(declared)
        return self.evaluate(expr)

    def _product(self, extents: str) -> int | None:
        total = 1
        for part in extents.split(",") if extents.strip() else ["1"]:
            value = self.evaluate(part)
            if value is None:
                return None
            total *= value
        return total

    @cached_property
    def dim3_variables(self) -> dict[str, str]:
        """``dim3 name(x, y)``, ``dim3 name = dim3(x)``, ``dim3 name{x, y}`` -> extents text."""
        return {
            m.group(1): m.group(2) for m in _DIM3.finditer(self.code) if self.starts_word(m.start())
        }

    # -- constants -----------------------------------------------------------------------
    @cached_property
    def defines(self) -> dict[str, re.Match[str]]:
        """Object-like ``#define NAME value`` directives (the last one wins), each matched
        where :attr:`directives` found it (``define`` ends where its body starts)."""
        code = self.code
        found = {}
        for directive in self.directives:
            if directive.kind == "define" and code[directive.start] == "#":
                match = _DEFINE.match(code, directive.at - len("define"))
                if match is not None:
                    found[match.group(1)] = match
        return found

    @cached_property
    def constants(self) -> dict[str, re.Match[str]]:
        """``const``/``constexpr`` integer variables with an initializer."""
        if not self.has("const"):
            return {}
        return {m.group(1): m for m in _CONSTANT.finditer(self.code) if self.starts_word(m.start())}

    def constant_text(self, name: str) -> str | None:
        """The expression text behind a macro or constant name."""
        match = self.defines.get(name) or self.constants.get(name)
        return match.group(2) if match else None

    def evaluate(self, expr: str) -> int | None:
        """Value of a constant expression, resolving macros and constants of this file."""
        expr = expr.strip()
        if expr.isdigit() and expr.isascii() and (expr[0] != "0" or len(expr) == 1):
            return int(expr)
        cache = self._evaluated
        if expr not in cache:
            cache[expr] = cexpr.evaluate(expr, self.constant_text)
        return cache[expr]


@cache
def _anchored(
    literals: tuple[str, ...], anchors: tuple[str, ...]
) -> tuple[tuple[str, tuple[tuple[str, int], ...]], ...]:
    """Each anchor with the literals that contain it and where (every place)."""
    missing = [literal for literal in literals if not any(a in literal for a in anchors)]
    if missing:
        raise ValueError(f"no anchor in {missing}")
    placed = []
    for anchor in anchors:
        places = []
        for literal in literals:
            offset = literal.find(anchor)
            while offset != -1:
                places.append((literal, offset))
                offset = literal.find(anchor, offset + 1)
        placed.append((anchor, tuple(places)))
    return tuple(placed)


class _Name:
    """The identifier found right before a ``(`` (a tiny stand-in for a regex match)."""

    __slots__ = ("_name", "_start")

    def __init__(self, name: str, start: int) -> None:
        self._name, self._start = name, start

    def group(self, _index: int = 1) -> str:
        return self._name

    def start(self) -> int:
        return self._start


_ASCII_WORD = string.ascii_letters + string.digits + "_"
#: how far :func:`word_start` looks back with one ``rstrip`` before it goes on step by step
_WORD_WINDOW = 64


def word_start(code: str, end: int, floor: int = 0) -> int:
    """Start of the run of word characters (``str.isalnum()`` or ``_``, as regex ``\\w``)
    that ends at ``end``, not before ``floor``."""
    low = max(floor, end - _WORD_WINDOW)
    start = low + len(code[low:end].rstrip(_ASCII_WORD))
    while start > floor and (code[start - 1].isalnum() or code[start - 1] == "_"):
        start -= 1  # a longer name, or a non-ASCII letter
    return start


def _name_before(code: str, open_paren: int, floor: int) -> _Name | None:
    """The identifier (optionally followed by ``<...>`` template arguments) before a ``(``."""
    end = floor + len(code[floor:open_paren].rstrip(" \t\r\n"))
    if end > floor and code[end - 1] == ">":
        depth, pos = 0, end - 1
        while pos > floor:
            char = code[pos]
            depth += char == ">"
            depth -= char == "<"
            if depth == 0:
                break
            if char in ";{}()":
                return None
            pos -= 1
        end = pos
        while end > floor and code[end - 1] in " \t\r\n":
            end -= 1
    start = word_start(code, end, floor)
    if start == end or code[start].isdigit():
        return None
    return _Name(code[start:end], start)


@lru_cache(maxsize=4096)
def _shared_statement(
    statement: str,
) -> tuple[int, str, int | None, tuple[tuple[int, str, tuple[tuple[int, str], ...]], ...]] | None:
    """What a ``__shared__`` statement (the text after the keyword, to its ``;``) declares:
    the offset of its first ``[`` (-1: none), the element type, its size, and per declarator
    the offset of its name, the name and each dimension's offset and text (None: no type).
    Cached: the same statements come back in file after file of a project."""
    # drop qualifiers and alignment, keep "type declarator, declarator"
    cleaned = (
        _DECL_NOISE.sub(_blanked, statement)
        if "align" in statement  # what every _DECL_NOISE match contains
        or "extern" in statement
        or "static" in statement
        or "volatile" in statement
        or "const" in statement
        or "__restrict__" in statement
        else statement
    )
    type_match = _DECL_TYPE.match(cleaned)
    if type_match is None:
        return None
    type_name = " ".join(type_match.group(1).split())
    pos = type_match.end()
    declarators = []
    for part_start, _ in _split_top_level(cleaned[pos:]):
        declarator = _DECLARATOR.match(cleaned, pos + part_start)
        name = declarator.group("name") if declarator else None
        if not name:
            continue
        extents = ()
        dims_text = declarator.group("dims")
        if dims_text:
            dims_start = declarator.start("dims")
            extents = tuple(
                (dims_start + dim.start(1), dim.group(1)) for dim in _DIM.finditer(dims_text)
            )
        declarators.append((declarator.start("name"), name, extents))
    return statement.find("["), type_name, cexpr.sizeof(type_name), tuple(declarators)


def _blanked(match: re.Match[str]) -> str:
    return " " * (match.end() - match.start())


def _split_top_level(text: str) -> list[tuple[int, int]]:
    """Spans of the comma-separated parts of ``text`` that are not nested in brackets."""
    if "," not in text:
        return [(0, len(text))]
    parts, depth, start = [], 0, 0
    for match in _SPLIT_POINTS.finditer(text):
        char = match.group()
        if char in "([{<":
            depth += 1
        elif char != ",":
            depth = max(0, depth - 1)
        elif depth == 0:
            index = match.start()
            parts.append((start, index))
            start = index + 1
    parts.append((start, len(text)))
    return parts


#: what _split_top_level looks at: brackets and commas
_SPLIT_POINTS = re.compile(r"[][(){}<>,]")


class PythonSource(_Source):
    """A Python file as rules see it: parsed once, with imports resolved."""

    def __init__(self, path: str, text: str, tree: ast.Module) -> None:
        super().__init__(path, text)
        self.tree = tree
        self._present: dict[str, bool] = {}

    def has(self, literal: str) -> bool:
        """Whether ``literal`` occurs in the text (cached)."""
        known = self._present.get(literal)
        if known is None:
            known = self._present[literal] = contains(self.text, literal)
        return known

    @cached_property
    def nodes(self) -> list[ast.AST]:
        return list(ast.walk(self.tree))

    def of_type(self, *types: type) -> list:
        return [node for node in self.nodes if isinstance(node, types)]

    @cached_property
    def aliases(self) -> dict[str, str]:
        """Local name -> the dotted module or object name it was imported as."""
        names: dict[str, str] = {}
        for node in self.of_type(ast.Import, ast.ImportFrom):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        names[alias.asname] = alias.name
                    else:
                        top = alias.name.split(".")[0]
                        names[top] = top
            elif node.module and not node.level:
                for alias in node.names:
                    names[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        return names

    def qualname(self, node: ast.AST) -> str | None:
        """``a.b.c`` for a Name/Attribute chain, with the first name resolved through imports."""
        parts: list[str] = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name):
            return None
        parts.append(self.aliases.get(node.id, node.id))
        return ".".join(reversed(parts))

    def offset(self, lineno: int, col_offset: int) -> int:
        """Character offset of an AST position (``col_offset`` counts UTF-8 bytes)."""
        start = self.line_starts[lineno - 1]
        line = self.text[start : start + col_offset * 4 + 1]
        if line.isascii():
            return start + col_offset
        return start + len(line.encode("utf-8")[:col_offset].decode("utf-8", "ignore"))

    def span(self, node: ast.AST) -> tuple[int, int]:
        return (
            self.offset(node.lineno, node.col_offset),
            self.offset(node.end_lineno, node.end_col_offset),
        )

    def node_finding(self, node: ast.AST, message: str, fix: Fix | None = None, **extra) -> Finding:
        return self.finding(self.span(node)[0], message, fix, **extra)

    def source_of(self, node: ast.AST) -> str:
        start, end = self.span(node)
        return self.text[start:end]

    @cached_property
    def parents(self) -> dict[ast.AST, ast.AST]:
        """Node -> the node it is a child of."""
        return {child: node for node in self.nodes for child in ast.iter_child_nodes(node)}

    def ancestors(self, node: ast.AST) -> Iterator[ast.AST]:
        """The nodes ``node`` is inside of, innermost first."""
        parents = self.parents
        while (node := parents.get(node)) is not None:
            yield node
