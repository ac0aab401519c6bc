"""The warp model of a file: which warp width each warp-related spot of a kernel assumes.

A model is one kernel (a ``__global__`` function) together with the ``__device__`` functions
it calls in the same file, or a set of ``__device__`` functions that call each other (joined
wherever two share a function). Each spot says which width it assumes: ``32`` (a literal 32 in
lane math, a shuffle loop from 16, a shuffle width or tile of 32, a warp-size macro that is 32,
here or in another header of the tree), ``warpSize`` or ``64``. Code that uses 32 everywhere
computes the same on a 64-lane wavefront (each wavefront holds two 32-lane groups); only a
model that mixes widths breaks. A fix moves every 32-lane spot of a model to ``warpSize``
together, or is not offered.
"""

from __future__ import annotations

import contextlib
import os
import re
import string
from bisect import bisect_left, bisect_right
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from operator import attrgetter

from rocport._diagnostics import Applicability, Edit, Fix
from rocport.scan import cexpr
from rocport.scan.context import CudaSource, Function, word_start
from rocport.scan.preprocessor import Directive, header_directives, macro_parts, quoted_include
from rocport.scan.registry import scan_cache
from rocport.scan.rules.cuda._lane_math import LaneMath, is_isolated, lane_math
from rocport.scan.rules.cuda._warp import SHUFFLE, WARP_SIZE_NAME

W32, WARPSIZE, W64 = "32", "warpSize", "64"
_OFFSET = attrgetter("offset")

_FOR = re.compile(r"for\s*\(")
_LOOP_TYPES = r"(?:(?:const|unsigned|signed|int|auto|long|short|size_t|u?int32_t)\s+)*"
#: a halving loop from 16 (32 lanes) or 32 (64 lanes)
DOWN_LOOP = re.compile(
    rf"^\s*{_LOOP_TYPES}(?P<var>[A-Za-z_]\w*)\s*=\s*(?P<start>16|32)[uU]?\s*;[^;]*;\s*"
    r"(?:(?P=var)\s*(?:/=\s*2|>>=\s*1)|(?P=var)\s*=\s*(?P=var)\s*(?:/\s*2|>>\s*1))\s*$"
)
#: a doubling loop that stays below 32 lanes
UP_LOOP = re.compile(
    rf"^\s*{_LOOP_TYPES}(?P<var>[A-Za-z_]\w*)\s*=\s*1[uU]?\s*;\s*(?P=var)\s*(?P<cmp><=?)\s*"
    r"(?P<limit>32|16)[uU]?\s*;"
    r"\s*(?:(?P=var)\s*(?:\*=\s*2|<<=\s*1)|(?P=var)\s*=\s*(?P=var)\s*(?:\*\s*2|<<\s*1))\s*$"
)
_UP_LIMIT = {("<", "32"): "warpSize", ("<=", "16"): "warpSize / 2"}
_WARPSIZE = re.compile(r"\bwarpSize\b")
_TILE = re.compile(r"\b(?:thread_block_tile|tiled_partition)\s*<\s*32\s*>")
_SHUFFLE_CALL = re.compile(r"\b__shfl(?:_up|_down|_xor)?(?P<sync>_sync)?\s*\(")
_CROSS_LANE = re.compile(
    r"__shfl|\.shfl|__ballot|__any|__all|__activemask|__syncwarp|__reduce_|__match_|"
    r"__lanemask|thread_block_tile|tiled_partition|\bcg::reduce\b|"
    r"\b\w*(?:[wW]arp|[rR]educe)\w*\s*(?:<[^;<>]*>)?\s*\("
)
#: :data:`_CROSS_LANE` matched at its anchors: the name alternative starts at `warp`/`reduce`
#: inside the name (a name that holds one is found there), so that no regex is tried at every
#: character
_CROSS_LANE_AT = re.compile(
    r"__shfl|\.shfl|__ballot|__any|__all|__activemask|__syncwarp|__reduce_|__match_|"
    r"__lanemask|thread_block_tile|tiled_partition|\bcg::reduce\b|"
    r"(?:[wW]arp|[rR]educe)\w*\s*(?:<[^;<>]*>)?\s*\("
)
_CROSS_LANE_ANCHORS = (
    "__shfl",
    ".shfl",
    "__ballot",
    "__any",
    "__all",
    "__activemask",
    "__syncwarp",
    "__reduce_",
    "__match_",
    "__lanemask",
    "thread_block_tile",
    "tiled_partition",
    "cg::reduce",
    "warp",
    "Warp",
    "reduce",
    "Reduce",
)
_BLOCKER_ANCHORS = ("32", "31", "0x1", "0X1", "<<", ">>")
#: punctuation to blanks: what is left of a body, split, holds its names (and numbers)
_PUNCTUATION = str.maketrans(dict.fromkeys(string.punctuation.replace("_", ""), " "))
#: the same for ASCII code as bytes (``bytes.translate``, a table lookup per byte, is about
#: 1.5 times as fast as ``str.translate`` on the same text)
_PUNCTUATION_BYTES = bytes.maketrans(
    string.punctuation.replace("_", "").encode(), b" " * (len(string.punctuation) - 1)
)
#: a name (among a body's names, joined by blanks) that makes the code cross-lane by itself
_CROSS_LANE_WORD = re.compile(
    r"(?:^| )(?:__shfl|__ballot|__any|__all|__activemask|__syncwarp|__reduce_|__match_|"
    r"__lanemask|thread_block_tile|tiled_partition|shfl)"
)
#: a name that may be a warp function (``blockReduce<...>(``, ``cg::reduce``): checked in place
_MAYBE_CROSS_LANE_WORD = re.compile(r"(?i)warp|reduce")
#: literals that tie data to 32 lanes when they are not one of the model's spots
_BLOCKER = re.compile(r"(?<![\w.])(?:32|31|0[xX]1[fF])[uU]?(?![\w.])|<<\s*5\b|>>\s*5\b")
_SHARED_DIM_32 = re.compile(r"__shared__[^;]*?\b(?P<name>\w+)\s*\[\s*(?P<dim>32)[uU]?\s*\]")
_ASSIGNED = re.compile(r"(?:^|[;{}(,])\s*(?:[\w:<>]+\s+)*(?P<name>[A-Za-z_]\w*)\s*=\s*[^;=]*$")


@dataclass(slots=True)
class Site:
    """One spot that assumes a warp width: what it is, where, and how to make it warpSize."""

    offset: int
    kind: str  # shuffle-loop, lane-math, macro, width, tile, warpSize
    width: str
    text: str
    #: edits that move it to warpSize (None: no mechanical rewrite; empty: nothing to do)
    edits: tuple[Edit, ...] | None = ()


@dataclass(slots=True)
class Model:
    """The warp spots of one kernel and the functions it calls."""

    functions: list[Function]
    sites: list[Site] = field(default_factory=list)
    cross_lane: bool = False
    #: the file is a header: its functions may be called, and its spots met, elsewhere
    header: bool = False
    #: what the properties below computed (a model answers the same for each of its findings)
    memo: dict = field(default_factory=dict)

    def blocked(self, src: CudaSource) -> bool:
        """Whether a literal outside the spots ties the code to 32 lanes (found on first use:
        only a fix needs it)."""
        if "blocked" not in self.memo:
            self.memo["blocked"] = _blocked(src, self, [f.body for f in self.functions])
        return self.memo["blocked"]

    @property
    def name(self) -> str:
        if "name" not in self.memo:
            kernels = [f.name for f in self.functions if f.is_kernel]
            self.memo["name"] = (kernels or [f.name for f in self.functions])[0]
        return self.memo["name"]

    @property
    def widths(self) -> set[str]:
        return {site.width for site in self.sites}

    @property
    def mixed(self) -> bool:
        if "mixed" not in self.memo:
            widths = self.widths
            self.memo["mixed"] = W32 in widths and (WARPSIZE in widths or W64 in widths)
        return self.memo["mixed"]

    def other(self) -> Site | None:
        """A spot that does not assume 32 lanes (what a 32-lane spot disagrees with)."""
        return next((s for s in self.sites if s.width != W32), None)

    def disagreement(self) -> str:
        """``while `warpSize` in `k` uses the whole wavefront`` for a mixed model's messages."""
        if "disagreement" not in self.memo:
            self.memo["disagreement"] = self._disagreement()
        return self.memo["disagreement"]

    def _disagreement(self) -> str:
        other = self.other()
        uses = "uses the whole wavefront" if other.width == WARPSIZE else "assumes 64 lanes"
        return f"while `{other.text}` in `{self.name}` {uses}"

    def group_fix(self, src: CudaSource) -> Fix | None:
        """One fix that moves every 32-lane spot to warpSize, or None where one cannot be
        rewritten, another 32 ties the code to 32 lanes, or the model may have spots in other
        files (it has no kernel, or it lies in a header that other files include). It is
        safe where the model is mixed (``warpSize`` is 32 on NVIDIA GPUs), unsafe where every
        spot assumes 32 lanes (it moves consistent code to the whole 64-lane wavefront)."""
        if "fix" not in self.memo:
            self.memo["fix"] = self._group_fix(
                src, Applicability.SAFE if self.mixed else Applicability.UNSAFE
            )
        return self.memo["fix"]

    def _group_fix(self, src: CudaSource, applicability: Applicability) -> Fix | None:
        spots = [s for s in self.sites if s.width == W32]
        if not spots or any(s.edits is None for s in spots):
            return None
        if self.header or not any(f.is_kernel for f in self.functions) or self.blocked(src):
            return None
        unique = {(e.start, e.end, e.text): e for s in spots for e in s.edits}
        edits = tuple(unique[key] for key in sorted(unique))
        count = len(spots)
        title = (
            f"Move every 32-lane spot of `{self.name}` to `warpSize` together ({count} spots)"
            if count > 1
            else f"Move the 32-lane spot of `{self.name}` to `warpSize`"
        )
        return Fix(title, edits, applicability)

    def hint(self) -> Fix:
        if "hint" not in self.memo:
            self.memo["hint"] = self._hint()
        return self.memo["hint"]

    def _hint(self) -> Fix:
        spots = sorted({s.text for s in self.sites if s.width == W32})
        shown = ", ".join(f"`{s}`" for s in spots[:4]) + (", ..." if len(spots) > 4 else "")
        return Fix(
            f"Change every 32-lane spot of `{self.name}` together ({shown}) or none",
            (),
            Applicability.DISPLAY_ONLY,
        )


def model_at(src: CudaSource, offset: int) -> Model | None:
    """The model of the function whose body contains ``offset`` (None outside functions)."""
    function = src.function_at(offset)
    if function is None:
        return None
    graph = _graph(src)
    members = graph.groups.get(function.body[0])
    if members is None:
        return None
    model = graph.models.get(members[0])
    if model is None:  # made on first use: most functions of a file are never asked about
        model = Model([graph.functions[i] for i in members], header=graph.header)
        graph.models[members[0]] = model
    return _fill(src, model)


@dataclass(slots=True)
class _CallGraph:
    """A file's functions joined into models."""

    functions: list[Function]
    #: body start of each function -> the indexes of its model's functions (one list per model)
    groups: dict[int, list[int]]
    #: the names (and numbers) in each function's body, by function index
    words: list[list[str]]
    header: bool
    #: the models made so far, by the index of their first function
    models: dict[int, Model] = field(default_factory=dict)


def _graph(src: CudaSource) -> _CallGraph:
    cached = src.__dict__.get("_rocport_call_graph")
    if cached is None:
        cached = src.__dict__["_rocport_call_graph"] = _build(src)
    return cached


def _build(src: CudaSource) -> _CallGraph:
    functions = src.functions
    header = src.path.endswith(_HEADER_SUFFIXES)
    if not functions:
        return _CallGraph(functions, {}, [], header)
    parent = list(range(len(functions)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    by_name: dict[str, list[int]] = {}
    for index, function in enumerate(functions):
        by_name.setdefault(function.name, []).append(index)
    for indexes in by_name.values():
        for other in indexes[1:]:
            parent[root(other)] = root(indexes[0])
    # a body that names a function joins its model (its names are kept for the models a rule
    # asks about); only the bodies are read, one after the other in ``device_code``
    device = src.device_code
    if device.isascii():
        names = device.encode("ascii").translate(_PUNCTUATION_BYTES).decode("ascii")
    else:
        names = device.translate(_PUNCTUATION)
    function_names = set(by_name)
    words = [
        names[at + 1 : at + end - start].split()
        for at, (start, end) in zip(src.device_starts, (f.body for f in functions), strict=True)
    ]
    for index, body_words in enumerate(words):
        for name in function_names.intersection(body_words):
            parent[root(index)] = root(by_name[name][0])
    members: dict[int, list[int]] = {}
    for index in range(len(functions)):
        members.setdefault(root(index), []).append(index)
    groups = {functions[i].body[0]: group for group in members.values() for i in group}
    return _CallGraph(functions, groups, words, header)


def _warp_size_names(words: set[str], joined: str) -> set[str]:
    """The warp-size names among ``words`` (``joined``: the same joined by blanks) but
    ``warpSize``: each holds ``warp``, ``lane`` or ``wave``, found with ``str.find`` rather
    than a regex tried at every character."""
    lowered = joined.lower()
    if len(lowered) != len(joined):  # a name whose lower case is longer: offsets would move
        return {w for w in words if _is_warp_size_name(w)}
    found = set()
    for part in ("warp", "lane", "wave"):
        at = lowered.find(part)
        while at != -1:
            start = lowered.rfind(" ", 0, at) + 1
            end = lowered.find(" ", at)
            end = len(lowered) if end == -1 else end
            word = joined[start:end]
            if _is_warp_size_name(word):
                found.add(word)
            at = lowered.find(part, end)
    return found


@lru_cache(maxsize=4096)
def _is_warp_size_name(word: str) -> bool:
    """Whether ``word`` names the warp size, other than ``warpSize`` (cached: the same names
    come back in model after model)."""
    return word != "warpSize" and WARP_SIZE_NAME.match(word) is not None


def _fill(src: CudaSource, model: Model) -> Model:
    """Find the model's spots and whether it uses cross-lane operations (once, on first use:
    most models of a file are never asked)."""
    if "filled" in model.memo:
        return model
    code = src.code
    spans = [f.body for f in model.functions]
    graph = _graph(src)
    used = set().union(*[graph.words[i] for i in graph.groups[spans[0][0]]])
    joined = " ".join(used)
    model.sites = _sites(src, spans, used, joined)
    model.cross_lane = bool(_CROSS_LANE_WORD.search(joined)) or bool(
        _MAYBE_CROSS_LANE_WORD.search(joined)
        and _matches_in(
            code,
            _CROSS_LANE_AT,
            _starts(src, _CROSS_LANE_ANCHORS),
            [(a, b + 1) for a, b in spans],
            first=True,
        )
    )
    model.memo["filled"] = True
    return model


def _is_ascii(src: CudaSource) -> bool:
    """Whether the code is ASCII (cached per file)."""
    known = src.__dict__.get("_rocport_ascii")
    if known is None:
        known = src.__dict__["_rocport_ascii"] = src.code.isascii()
    return known


def _starts(src: CudaSource, anchors: tuple[str, ...]) -> list[int]:
    """Sorted offsets of every anchor in the code (cached per file and anchor set)."""
    cache = src.__dict__.setdefault("_rocport_warp_starts", {})
    found = cache.get(anchors)
    if found is None:
        found = cache[anchors] = sorted({at for anchor in anchors for at in src.find_all(anchor)})
    return found


def _offsets_in(code: str, anchors: tuple[str, ...], spans: list[tuple[int, int]]) -> list[int]:
    """Sorted offsets of every anchor that lies inside one of ``spans`` (a search of the spans
    only: :func:`_starts` would read the whole file). ``literals.offsets`` on a slice of each
    span found the same, but its per-call choice of search cost more than the search here."""
    found: list[int] = []
    find = code.find
    for start, end in spans:
        for anchor in anchors:
            at = find(anchor, start, end)
            while at != -1:
                found.append(at)
                at = find(anchor, at + 1, end)
    return sorted(set(found))


def _matches_in(
    code: str,
    pattern: re.Pattern[str],
    starts: list[int],
    spans: list[tuple[int, int]],
    first: bool = False,
) -> list[re.Match[str]]:
    """What ``pattern.finditer(code, start, end)`` finds in each of ``spans`` (sorted; only
    the first match with ``first``), trying ``pattern`` only at ``starts``: sorted offsets
    among which every match begins."""
    found: list[re.Match[str]] = []
    if not starts:
        return found
    match = pattern.match
    for start, end in spans:
        last = start
        for at in starts[bisect_left(starts, start) : bisect_left(starts, end)]:
            if at >= last:
                hit = match(code, at, end)
                if hit is not None:
                    found.append(hit)
                    if first:
                        return found
                    last = hit.end()
    return found


def _sites(
    src: CudaSource, bodies: list[tuple[int, int]], used: set[str], joined: str
) -> list[Site]:
    """The spots inside ``bodies``; ``used``: the names they use (``joined``: the same joined
    by blanks). A spot whose name is not among ``used`` is not looked for (in ASCII code,
    where a name is a word exactly as ``\\b`` sees one)."""
    code = src.code
    ascii_code = _is_ascii(src)
    sites: list[Site] = []
    items = lane_math(src)
    starts = src.__dict__.get("_rocport_lane_starts")
    if starts is None:
        starts = src._rocport_lane_starts = [item.lhs_start for item in items]
    for start, end in bodies:
        for item in items[bisect_left(starts, start) : bisect_right(starts, end)]:
            sites.append(_lane_site(src, item))
    warp_size = src.find_in_bodies("warpSize") if "warpSize" in used or not ascii_code else []
    macros = []  # the warp-size names used here whose width is known, and where they are
    for name in _warp_size_names(used, joined):
        width = macro_width(src, name)
        if width is not None:
            macros.append((name, width, src.find_in_bodies(name)))
    tiled = "thread_block_tile" in used or "tiled_partition" in used or not ascii_code
    tiles = _starts(src, ("thread_block_tile", "tiled_partition")) if tiled else []
    shuffles = src.find_all("__shfl") if "__shfl" in joined or not ascii_code else []
    # a shuffle loop needs a shuffle (`__shfl` or `.shfl` in its body: a name holding `shfl`);
    # `for` is in many names, so only the bodies are searched
    shuffling = "shfl" in joined and src.has("__shfl")
    fors = _offsets_in(code, ("for",), bodies) if shuffling else []
    # kind by kind over all bodies: the stable sort below orders the spots of one offset by
    # kind, as within one body
    for match in _matches_in(code, _WARPSIZE, warp_size, bodies):
        sites.append(Site(match.start(), "warpSize", WARPSIZE, "warpSize"))
    for name, width, where in macros:
        for start, end in bodies:
            for at in where[bisect_left(where, start) : bisect_left(where, end)]:
                if src.is_word_at(at, at + len(name)):
                    sites.append(Site(at, "macro", width, name, None))
    for match in _matches_in(code, _TILE, tiles, bodies):
        sites.append(Site(match.start(), "tile", W32, match.group(), None))
    for match in _matches_in(code, _FOR, fors, bodies):
        site = _loop_site(src, match)
        if site is not None:
            sites.append(site)
    for match in _matches_in(code, _SHUFFLE_CALL, shuffles, bodies):
        site = _width_site(src, match)
        if site is not None:
            sites.append(site)
    sites.sort(key=_OFFSET)
    return sites


def _lane_site(src: CudaSource, item: LaneMath) -> Site:
    start, end = item.match.start("num"), item.end
    text = f"{item.lhs} {item.op} {item.match.group('num')}"
    if item.op in ("%", "/"):
        edits: tuple[Edit, ...] | None = (Edit(start, end, "warpSize"),)
    elif item.op == "&":
        edits = (Edit(start, end, "(warpSize - 1)"),)
    elif is_isolated(src, item):
        edits = (Edit(item.match.start("op"), end, "/ warpSize"),)
    else:
        edits = None
    return Site(item.lhs_start, "lane-math", W32, text, edits)


def shuffle_loop(src: CudaSource, head: re.Match[str]) -> tuple[re.Match[str], int, str] | None:
    """``(header match, header offset, kind)`` of a shuffle loop whose ``for`` is at ``head``:
    kind ``down`` (halving from 16 or 32) or ``up`` (doubling below 32)."""
    if not src.starts_word(head.start()):
        return None
    close = src.paren_end(head.end() - 1)
    if close <= 0:
        return None
    header = src.code[head.end() : close]
    down = DOWN_LOOP.match(header)
    up = None if down else UP_LOOP.match(header)
    if not (down or up):
        return None
    loop = src.loop_at(head.start(), "for", head.end() - 1)
    if loop is None or not SHUFFLE.search(src.code, *loop.body):
        return None
    return (down, head.end(), "down") if down else (up, head.end(), "up")


def _loop_site(src: CudaSource, head: re.Match[str]) -> Site | None:
    found = shuffle_loop(src, head)
    if found is None:
        return None
    match, base, kind = found
    if kind == "down":
        start, end = base + match.start("start"), base + match.end("start")
        value = match.group("start")
        if value == "32":
            return Site(start, "shuffle-loop", W64, f"offset = {value}")
        return Site(
            start, "shuffle-loop", W32, f"offset = {value}", (Edit(start, end, "warpSize / 2"),)
        )
    start, end = base + match.start("limit"), base + match.end("limit")
    limit = _UP_LIMIT.get((match.group("cmp"), match.group("limit")))
    text = f"{match.group('cmp')} {match.group('limit')}"
    return Site(
        start, "shuffle-loop", W32, text, None if limit is None else (Edit(start, end, limit),)
    )


def _width_site(src: CudaSource, call: re.Match[str]) -> Site | None:
    close = src.paren_end(call.end() - 1)
    if close < 0:
        return None
    code = src.code
    last = code.rfind(",", call.end(), close)
    if last == -1 or code[last + 1 : close].strip().rstrip("uU") not in ("32", "64"):
        return None  # the width is the last argument: only a literal 32 or 64 is a spot
    args = _split(code, call.end(), close)
    index = 3 if call.group("sync") else 2
    if len(args) <= index:
        return None
    start, end = args[index]
    value = src.code[start:end].rstrip("uU")
    if value == "32":
        return Site(start, "width", W32, "width 32", (Edit(start, end, "warpSize"),))
    if value == "64":
        return Site(start, "width", W64, "width 64")
    return None


def _split(code: str, start: int, end: int) -> list[tuple[int, int]]:
    """Spans (stripped) of the top-level comma-separated arguments in ``code[start:end]``."""
    spans, depth, begin = [], 0, start
    for index in range(start, end):
        char = code[index]
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == "," and depth == 0:
            spans.append((begin, index))
            begin = index + 1
    spans.append((begin, end))
    out = []
    for a, b in spans:
        while a < b and code[a].isspace():
            a += 1
        while b > a and code[b - 1].isspace():
            b -= 1
        out.append((a, b))
    return out


def _blocked(src: CudaSource, model: Model, spans: list[tuple[int, int]]) -> bool:
    """Whether a literal outside the model's spots ties it to 32 lanes (``32 * n``, ``& 31``
    on data, a ``__shared__ x[32]`` written at lane ids)."""
    code = src.code
    covered = set()
    for site in model.sites:
        for edit in site.edits or ():
            covered.update(range(edit.start, edit.end))
    narrow = [s for s in model.sites if s.width == W32]  # sorted by offset, as model.sites
    narrow_offsets = [s.offset for s in narrow]
    reach = max((len(s.text) + 8 for s in narrow), default=0)
    exempt: set[int] | None = None
    for a, b in spans:  # span by span: the first blocker ends the search
        for match in _matches_in(
            code, _BLOCKER, _offsets_in(code, _BLOCKER_ANCHORS, [(a, b)]), [(a, b)]
        ):
            at = match.start()
            near = narrow[
                bisect_left(narrow_offsets, at - reach) : bisect_right(narrow_offsets, at)
            ]
            if at in covered or any(s.offset <= at < s.offset + len(s.text) + 8 for s in near):
                continue
            if exempt is None:
                exempt = _per_warp_dims(src, model, spans)
            if at not in exempt:
                return True
    return False


def _per_warp_dims(src: CudaSource, model: Model, spans: list[tuple[int, int]]) -> set[int]:
    """Offsets of the ``32`` of ``__shared__ x[32]`` arrays never written at a lane id: one
    slot per warp, which ``warpSize >= 32`` needs no more of."""
    code = src.code
    shared_starts = src.find_all("__shared__")
    exempt: set[int] = set()
    lane_vars: list[str] | None = None
    for a, b in spans:
        for match in _matches_in(code, _SHARED_DIM_32, shared_starts, [(a, b)]):
            if lane_vars is None:
                lane_vars = _lane_variables(src, model)
            name = match.group("name")
            lanes = "|".join(lane_vars) or "(?!)"
            written = re.search(
                rf"\b{re.escape(name)}\s*\[[^\]]*\b(?:{lanes})\b[^\]]*\]\s*=(?!=)", code[a:b]
            )
            if not written:
                exempt.add(match.start("dim"))
    return exempt


def _lane_variables(src: CudaSource, model: Model) -> list[str]:
    """Names assigned from ``x % 32`` / ``x & 31`` (lane ids) in the model."""
    code = src.code
    names = []
    for site in model.sites:
        if site.kind != "lane-math" or site.text.split()[1] not in ("%", "&"):
            continue
        line_start = max(code.rfind(";", 0, site.offset), code.rfind("{", 0, site.offset))
        match = _ASSIGNED.search(code, line_start, site.offset)
        if match:
            names.append(re.escape(match.group("name")))
    return names


# -- what other headers of the tree define ------------------------------------------------


@dataclass(frozen=True, slots=True)
class TreeFacts:
    """Macros of the headers a file includes (and of the headers beside it)."""

    #: warp-size macro -> the values it is defined with
    values: dict[str, frozenset[str]]
    #: mask-taking intrinsics that a project header defines without using the mask
    mask_free: frozenset[str]


_EMPTY = TreeFacts({}, frozenset())
_HEADER_SUFFIXES = (".h", ".cuh", ".hpp", ".hh", ".inl")
#: the parameters of a mask-taking function up to the mask's name and its comma
_MASK_PARAMETER = (
    r"\s*\(\s*(?:const\s+)?(?:unsigned(?:\s+int)?|int|uint32_t|uint64_t|"
    r"unsigned\s+long\s+long|[A-Z]\w*)\s+(\w+)\s*,"
)
#: :func:`_sync_definitions` looks for these where a word that ends in ``_sync`` starts: a
#: ``\b`` in front would make the regex try every character of every header (ten to twenty
#: times slower)
_MASK_FUNCTION = re.compile(r"(__\w+_sync)" + _MASK_PARAMETER + r"[^)]*\)\s*\{([^{}]*)\}")
#: where a :data:`_MASK_FUNCTION` name ends: ``_sync`` and the mask parameter (calls, which
#: pass a value there, are passed over by the regex, not by Python)
_MASK_FUNCTION_END = re.compile(r"_sync" + _MASK_PARAMETER)
#: parameters of a mask-taking macro: the mask, then the others
_MASK_PARAMETERS = re.compile(r"\(\s*(\w+)\s*,([^)]*)\)")
_MASK_MACRO_NAME = re.compile(r"__\w+_sync")
_MAX_HEADER = 2_000_000
_Facts = tuple[dict[str, set[str]], set[str], list[str]]
#: a header's facts, with the size and modification time they were read at
_HEADERS: dict[str, tuple[tuple[int, int], _Facts]] = {}
#: the facts of the files this scan reads anyway, from their text
_SCANNED: dict[str, _Facts] = scan_cache()
_TREE_CACHE: dict[str, TreeFacts] = scan_cache()


def _header(path: str) -> _Facts:
    """Warp-size macros, mask-free intrinsics and quoted includes of one file (read again
    only when its size or modification time changed)."""
    scanned = _SCANNED.get(path)
    if scanned is not None:
        return scanned
    try:
        info = os.stat(path)
    except OSError:
        return {}, set(), []
    stamp = (info.st_size, info.st_mtime_ns)
    cached = _HEADERS.get(path)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    read = header_directives(path, stamp) if info.st_size <= _MAX_HEADER else None
    facts = _facts_of(*read) if read is not None else ({}, set(), [])
    _HEADERS[path] = (stamp, facts)
    return facts


def _facts_of(text: str, directives: list[Directive]) -> _Facts:
    """:func:`_header` of a file's text and its directives."""
    values: dict[str, set[str]] = {}
    mask_free: set[str] = set()
    includes: list[str] = []
    for directive in directives:
        kind = directive.kind
        if kind == "define":
            parts = macro_parts(directive)
            if parts is None:
                continue
            name, parameters, body = parts
            if parameters is None:
                value = body.strip()
                if value and _is_warp_size_name(name):
                    values.setdefault(name, set()).add(value)
                continue
            mask = _MASK_PARAMETERS.fullmatch(parameters)
            if (
                mask is not None
                and _MASK_MACRO_NAME.fullmatch(name)
                and not re.search(rf"\b{re.escape(mask.group(1))}\b", mask.group(2) + body)
            ):
                mask_free.add(name)
        elif kind == "include":
            name = quoted_include(text, directive)
            if name is not None:
                includes.append(name)
    for match in _sync_definitions(text):  # (name, mask parameter, body)
        if not re.search(rf"\b{re.escape(match.group(2))}\b", match.group(3)):
            mask_free.add(match.group(1))
    return values, mask_free, includes


def _sync_definitions(text: str) -> Iterator[re.Match[str]]:
    """What ``_MASK_FUNCTION`` with a ``\b`` in front would find, tried only at the start of
    each word that ends in ``_sync`` followed by a typed first parameter (its literal ``__``
    starts every ``__global__``; a ``_sync`` inside a word, as in each ``__syncthreads``,
    cannot end its name; a call passes a value, not a type and a name)."""
    end = 0
    found = _MASK_FUNCTION_END.search(text)
    while found is not None:
        at = found.start()
        start = word_start(text, at)
        if start >= end and text.startswith("__", start):
            match = _MASK_FUNCTION.match(text, start)
            if match is not None:
                yield match
                end = match.end()
        found = _MASK_FUNCTION_END.search(text, at + 5)


def tree_facts(src: CudaSource) -> TreeFacts:
    """The facts of the headers that the file of ``src`` includes (transitively, resolved
    beside each includer and up to three folders above it) and of the headers in its folder
    (with what they include); each header and folder is read once per scan, the file itself
    not at all (its text is at hand)."""
    path = src.path
    if not path:
        return _EMPTY
    absolute = os.path.abspath(path)  # includes resolve beside the file as named, as compilers do
    cached = _TREE_CACHE.get(absolute)
    if cached is not None:
        return cached
    if not os.path.isfile(absolute):
        return _EMPTY
    if absolute not in _SCANNED:
        _SCANNED[absolute] = _facts_of(src.text, src.directives)
    values: dict[str, set[str]] = {}
    mask_free: set[str] = set()
    own = _header(absolute)[0]
    for part in (*_closure(absolute), _folder(os.path.dirname(absolute))):
        for name, found in part.values.items():
            if name not in own:
                values.setdefault(name, set()).update(found)
        mask_free |= part.mask_free
    facts = TreeFacts({k: frozenset(v) for k, v in values.items()}, frozenset(mask_free))
    _TREE_CACHE[absolute] = facts
    return facts


_CLOSURES: dict[str, tuple[TreeFacts, ...]] = scan_cache()
_FOLDERS: dict[str, TreeFacts] = scan_cache()


def _closure(path: str) -> tuple[TreeFacts, ...]:
    """The facts of ``path`` and of every header it includes, transitively (memoized)."""
    cached = _CLOSURES.get(path)
    if cached is not None:
        return cached
    _CLOSURES[path] = ()  # an include cycle ends here
    values, mask_free, includes = _header(path)
    parts = [TreeFacts({k: frozenset(v) for k, v in values.items()}, frozenset(mask_free))]
    base = os.path.dirname(path)
    for include in includes:
        found = _resolve(base, include)
        if found is not None:
            parts.extend(_closure(found))
    unique = tuple({id(part): part for part in parts}.values())
    _CLOSURES[path] = unique
    return unique


_RESOLVED: dict[tuple[str, str], str | None] = scan_cache()


def _resolve(base: str, include: str) -> str | None:
    """The file that ``#include "include"`` in folder ``base`` names: beside it or up to
    three folders above (cached per scan: the files of a folder include the same headers)."""
    key = (base, include)
    if key not in _RESOLVED:
        _RESOLVED[key] = None
        for up in range(4):
            candidate = os.path.normpath(os.path.join(base, *[".."] * up, include))
            if os.path.isfile(candidate):
                _RESOLVED[key] = candidate
                break
    return _RESOLVED[key]


def _folder(folder: str) -> TreeFacts:
    """The facts of the headers in ``folder`` and of what they include (memoized)."""
    cached = _FOLDERS.get(folder)
    if cached is not None:
        return cached
    names: list[str] = []
    with contextlib.suppress(OSError):
        names = sorted(n for n in os.listdir(folder) if n.endswith(_HEADER_SUFFIXES))
    values: dict[str, set[str]] = {}
    mask_free: set[str] = set()
    for name in names[:500]:
        for part in _closure(os.path.join(folder, name)):
            for key, found in part.values.items():
                values.setdefault(key, set()).update(found)
            mask_free |= part.mask_free
    facts = TreeFacts({k: frozenset(v) for k, v in values.items()}, frozenset(mask_free))
    _FOLDERS[folder] = facts
    return facts


def macro_width(src: CudaSource, name: str) -> str | None:
    """The width a warp-size macro or constant stands for (``32``, ``64``, ``warpSize``), from
    this file or, where it is not defined here, from the headers of the tree (None: unknown or
    defined with different values)."""
    text = src.constant_text(name)
    if text is not None:
        return _width_of(text, src.evaluate(text))
    values = tree_facts(src).values.get(name)
    if not values:
        return None
    widths = {_width_of(v, cexpr.evaluate(v.rstrip("uUlL"), lambda _n: None)) for v in values}
    return widths.pop() if len(widths) == 1 else None


def _width_of(text: str, value: int | None) -> str | None:
    stripped = text.strip().strip("()").strip().rstrip("uUlL")
    if stripped == "warpSize":
        return WARPSIZE
    if value is None and stripped.isdigit():
        value = int(stripped)
    return {32: W32, 64: W64}.get(value)
