"""Translate the text of one CUDA source file to HIP.

:func:`translate` makes one pass with the scanner of :mod:`rocport.port.scanner`, which finds
comments, literals, ``#include`` lines, ``<<<`` and only those identifiers that can be CUDA
names (its identifier alternatives come from the mapping's prefixes and names, so ordinary
identifiers never reach Python). Each distinct name is resolved once per mapping into a rule:
rename, keep, report as unsupported or unknown, or rewrite the call (``drop_first_arg``,
``HIP_SYMBOL``, a kernel cast to ``const void*``, a cache-hinted store made a plain one).
Rewrites are collected as ``(start, end, replacement)`` edits and joined once.

Output lines correspond 1:1 to input lines, except the lines listed in
:attr:`~rocport.port.model.Translation.inserted_lines` (``#include <hip/hip_runtime.h>``, which
nvcc includes implicitly and HIP does not, and ``#include <math.h>``, which nvcc's runtime
header brings and HIP's does not, where the file calls ``isnan``-like macros unqualified). Text
with nothing to change comes back as the identical object; translating the output again
changes nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from operator import itemgetter

from rocport.port import directives
from rocport.port.arguments import comments_and_newlines, skip_space, split_call, trim
from rocport.port.blas_datatypes import NOTE as NOTE_DATATYPE
from rocport.port.blas_datatypes import datatype_positions, hipblas_value
from rocport.port.launch import ggl_edits, launch_config, parse_launch, spaced_edits
from rocport.port.mapping import ASSIGN_THROUGH_POINTER, DROP_FIRST_ARG, HIPBLAS_DATATYPE, Mapping
from rocport.port.model import Found, Outcome, PortOptions, Translation
from rocport.port.scanner import (
    branch_needles,
    compile_scanner,
    declared_at,
    declares_namespace,
    identifier_branches,
    macro_parameters,
    split_alternatives,
    without_needled,
)
from rocport.port.warp_size import constant_uses, runtime_reason

#: Language words that mark a file as CUDA device code without being API references to report
#: (they stay as they are in HIP, which defines them in ``hip/hip_runtime.h``). ``threadIdx``
#: and friends only occur in functions marked with these, so they need not be scanned for.
DEVICE_KEYWORDS = (
    "__global__",
    "__device__",
    "__host__",
    "__shared__",
    "__constant__",
    "__managed__",
    "__launch_bounds__",
    "__syncthreads",
)
RUNTIME_HEADER = "hip/hip_runtime.h"
_RUNTIME_HEADERS = frozenset({RUNTIME_HEADER, "hip/hip_runtime_api.h"})
_INCLUDE_LINE = f"#include <{RUNTIME_HEADER}>\n"
#: nvcc's cuda_runtime.h includes <math.h>, which puts C99's classification macros in the global
#: namespace for C++ code; hip_runtime.h includes only <cmath>, so an unqualified
#: ``isfinite(x)`` in host code stops compiling (the device pass finds no overload)
_MATH_H_LINE = "#include <math.h>\n"
_MATH_H_NAMES = ("isfinite", "isnan", "isinf", "isnormal", "signbit", "fpclassify")
_OPEN_PAREN = re.compile(r"\s*\(")
#: the is* names of _MATH_H_NAMES found with one search of the text instead of one each
_MATH_H_IS_NAME = re.compile(f"is(?:{'|'.join(n[2:] for n in _MATH_H_NAMES if n[:2] == 'is')})")
_MATH_H_OTHERS = tuple(n for n in _MATH_H_NAMES if n[:2] != "is")
_MATH_H_INCLUDE = re.compile(r"^[ \t]*#[ \t]*include[ \t]*[<\"]math\.h[>\"]", re.MULTILINE)
_SCOPE_AFTER = re.compile(r"\s*::")
_NAMESPACE_BEFORE = re.compile(r"\bnamespace\s*$")
_SCOPE_BEFORE = re.compile(r"\b(\w+)\s*::\s*$")
_LAUNCH_NAME = "<<<>>>"
_UNRESOLVED = object()
_DEFINE = re.compile(r"\#[ \t]*define[ \t]+(\w+)")  # literal-first: fast; line start not needed
#: ``#define NAME OTHER`` with nothing else on the line (but a comment): a name for a name
_SHIM_DEFINE = re.compile(r"\#[ \t]*define[ \t]+(\w+)[ \t]+(\w+)[ \t]*(?=$|//|/\*)", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class _Rule:
    """How one identifier is handled (resolved once per name and mapping)."""

    replacement: str | None  # None leaves the name as written
    outcome: Outcome | None  # None: not reported (a device keyword)
    family: str
    note: str | None = None
    hip: str | None = None  # the HIP name reported (also when the name is kept as written)
    transform: str | None = None
    namespace: bool = False
    plain: bool = False  # translated or unsupported, no call rewrite, no context to check
    arity: tuple[tuple[int, str], ...] | None = None  # other HIP names by argument count


class _Plan:
    """The compiled scanner and the per-name rules for one mapping and set of options
    (compiled once per process: the scanner regex takes a few tenths of a second)."""

    def __init__(
        self,
        mapping: Mapping,
        extra: tuple[tuple[str, str], ...],
        warp_sync: str,
        local_names: frozenset[str] = frozenset(),
    ) -> None:
        self.mapping = mapping
        self.extra = dict(extra)
        self.local_names = local_names
        self.mask_free = warp_sync == "mask-free"
        cuda_like = mapping.cuda_like
        # names the prefixes miss, qualified ones included ("thrust::cuda" is one token)
        names = [n for n in mapping.entries if cuda_like.match(n) is None]
        names += [n for n in (*self.extra, *DEVICE_KEYWORDS) if cuda_like.match(n) is None]
        prefixes = split_alternatives(cuda_like.pattern)
        self.branches = tuple(identifier_branches(prefixes, names))
        needles = branch_needles(prefixes, names)
        self.needles = tuple(needles.values())
        self.lean_branches = without_needled(self.branches, needles)
        self.rules: dict[str, _Rule | None] = {}
        self.includes: dict[tuple[str, bool], _Rule | None] = {}
        #: the HIP namespaces that ``ns::Member`` names become (``cub::X`` -> ``hipcub::X``)
        self.hip_scopes = frozenset(
            e.hip for e in mapping.entries.values() if e.kind == "namespace" and e.hip
        )
        reason = runtime_reason(mapping.rocm)  # warpSize read at run time (ROCm 7)
        self.warp_rule = reason and _Rule(None, Outcome.UNSUPPORTED, "device", reason, plain=True)

    def scanner_for(self, text: str) -> re.Pattern[str]:
        """The scanner for ``text``: without the branches whose needle ``text`` lacks (they
        cannot match in it, and each costs an attempt at every occurrence of its first
        character), and compiled for ASCII where the text is ASCII (the same tokens)."""
        full = any(needle in text for needle in self.needles)
        return compile_scanner(self.branches if full else self.lean_branches, ascii=text.isascii())

    def rule(self, name: str) -> _Rule | None:
        try:
            return self.rules[name]
        except KeyError:
            rule = self.rules[name] = self._resolve(name)
            return rule

    def _resolve(self, name: str) -> _Rule | None:
        if name in self.extra:
            hip = self.extra[name]
            return _Rule(
                None if hip == name else hip, Outcome.TRANSLATED, "project", "project mapping", hip
            )
        entry = self.mapping.lookup(name)
        if entry is None and "::" in name:  # ns::Member: no entry of its own, so map the ns
            namespace, _, member = name.partition("::")
            scope = self.mapping.lookup(namespace)
            if scope is not None and scope.supported:
                # a member that is a CUDA name of its own is renamed too (``cub::cudaMalloc``):
                # ``hipcub::cudaMalloc`` would become ``hipcub::hipMalloc`` in a second port
                inner = self.mapping.lookup(member)
                if inner is not None and inner.supported and inner.hip and not inner.transform:
                    member = inner.hip
                hip = f"{scope.hip}::{member}"
                return _Rule(
                    None if hip == name else hip, Outcome.TRANSLATED, scope.family, scope.note, hip
                )
        if entry is None:
            if name in DEVICE_KEYWORDS:
                return _Rule(None, None, "device")
            if name in self.local_names:  # the project's own (``CUDA_CHECK``): not a CUDA API
                return None
            if self.mapping.is_cuda_like(name):
                return _Rule(None, Outcome.UNKNOWN, _family_of_unknown(name))
            return None
        if self.mask_free and entry.family == "device" and name.endswith("_sync"):
            rule = self._mask_free(name)
            if rule is not None:
                return rule
        if not entry.supported:
            return _Rule(None, Outcome.UNSUPPORTED, entry.family, entry.note, plain=True)
        if entry.transform == ASSIGN_THROUGH_POINTER:  # the name goes, the call becomes a store
            return _Rule(
                "(void)", Outcome.TRANSLATED, entry.family, entry.note, "*p = v", entry.transform
            )
        namespace = entry.kind == "namespace"
        return _Rule(
            None if entry.hip == name else entry.hip,
            Outcome.TRANSLATED,
            entry.family,
            entry.note,
            entry.hip,
            entry.transform,
            namespace,
            plain=not (entry.transform or namespace or entry.arity or name in _WRAPPED_ARGUMENT),
            arity=entry.arity,
        )

    def include_rule(self, path: str, *, angled: bool) -> _Rule | None:
        """How to handle ``#include <path>`` (``angled``) or ``#include "path"``."""
        key = (path, angled)
        if key not in self.includes:
            self.includes[key] = self._resolve_include(path, angled)
        return self.includes[key]

    def _resolve_include(self, path: str, angled: bool) -> _Rule | None:
        entry = self.mapping.include(path)
        if entry is None:  # unknown: reported only for a CUDA-looking system header
            stem = path.rsplit("/", 1)[-1].split(".", 1)[0]
            cuda_like = angled and self.mapping.cuda_like.match(stem) is not None
            return _Rule(None, Outcome.UNKNOWN, "include") if cuda_like else None
        if not entry.supported:
            return _Rule(None, Outcome.UNSUPPORTED, "include", entry.note)
        replacement = None if entry.hip == path else entry.hip
        return _Rule(replacement, Outcome.TRANSLATED, "include", entry.note, entry.hip)

    def _mask_free(self, name: str) -> _Rule | None:
        """``__shfl_down_sync(mask, v, d)`` -> ``__shfl_down(v, d)`` where HIP has that form."""
        base = self.mapping.lookup(name.removesuffix("_sync"))
        if base is None or not base.supported or base.transform:
            return None
        note = f"mask dropped: {base.hip} acts on the whole wavefront (a full mask)"
        return _Rule(base.hip, Outcome.TRANSLATED, "device", note, base.hip, DROP_FIRST_ARG)


_PLANS: dict[tuple, _Plan] = {}


def _plan(mapping: Mapping, options: PortOptions) -> _Plan:
    key = (id(mapping), options.extra_names, options.warp_sync, options.local_names)
    plan = _PLANS.get(key)
    if plan is None or plan.mapping is not mapping:
        if len(_PLANS) >= 16:
            _PLANS.clear()
        plan = _PLANS[key] = _Plan(
            mapping, options.extra_names, options.warp_sync, options.local_names
        )
    return plan


def _family_of_unknown(name: str) -> str:
    lowered = name.lower().lstrip("_")
    for family in ("cublaslt", "cublas", "cufft", "curand", "cusparse", "cusolver", "cudnn"):
        if lowered.startswith(family):
            return family
    for family in ("nvrtc", "nvtx", "nccl", "nvml"):
        if lowered.startswith(family):
            return family
    if lowered.startswith("cuda"):
        return "runtime"
    if lowered.startswith("cu"):
        return "driver"
    return "device"


def translate(text: str, *, path: str, mapping: Mapping, options: PortOptions) -> Translation:
    """Translate ``text`` (the contents of ``path``) to HIP.

    ``mapping`` must already be resolved for ``options.rocm`` and ``options.blas`` (see
    :func:`rocport.port.mapping.load_mapping`); ``path`` is for messages only. A file whose
    opening comments say ``rocport: skip-file`` comes back untouched, with no references.
    """
    if directives.skips_file(text):
        return Translation(text)
    return _Translator(text, _plan(mapping, options), options).run()


class _Translator:
    def __init__(self, text: str, plan: _Plan, options: PortOptions) -> None:
        self.text = text
        self.plan = plan
        self.options = options
        self.edits: list[tuple[int, int, str]] = []
        self.found: list[tuple[int, str, _Rule]] = []  # offset, name, rule
        self.off_spans: list[tuple[int, int]] = []
        self.launches: list[int] = []  # offsets of each "<<<" in code
        self.calls: dict = {}  # split_call's memo for this text
        self.unclosed: set[int] = set()  # launch_config's memo for this text
        self.unmatched: set[int] = set()  # parse_launch's memo for this text
        self._own_names: frozenset[str] | None = None
        self.unknown_at: list[tuple[int, str]] = []  # offset and name of each unknown name
        self.uses_cuda = False
        self.uses_device = False
        self.runtime_includes: set[str] = set()
        self.first_hip_include: str | None = None
        #: hipBLAS < 2.0 data-type arguments: span, and whether another value there is reported
        self.datatype_args: list[tuple[int, int, bool]] = []

    def run(self) -> Translation:
        self._scan()
        if self.datatype_args:
            self._hipblas_datatypes()
        if self.plan.warp_rule is not None and "warpSize" in self.text:
            rule = self.plan.warp_rule
            self.found += [(at, name, rule) for at, name in constant_uses(self.text)]
        self._drop_own_declarations()
        if "define" in self.text and self.edits:
            self._keep_shim_defines()
        self.uses_cuda = any(rule.outcome is not Outcome.UNKNOWN for _, _, rule in self.found)
        if self.launches:
            self._launches()
        out = self._apply()
        lines = []
        if self._needs_runtime_header():
            lines.append(_INCLUDE_LINE)
        nvcc_runtime = lines or (self.uses_cuda and RUNTIME_HEADER in self.runtime_includes)
        if nvcc_runtime and self._needs_math_h():
            lines.append(_MATH_H_LINE)
        inserted: list[int] = []
        if lines:
            at = directives.header_end(out)  # a line start of its own (after any BOM)
            newline = "\r\n" if "\r\n" in out[: out.find("\n") + 1 or None] else "\n"
            first = out.count("\n", 0, at) + 1
            inserted = list(range(first, first + len(lines)))
            out = out[:at] + "".join(lines).replace("\n", newline) + out[at:]
        self.found.sort(key=_OFFSET)
        return Translation(out, Found(self.text, self.found), inserted)

    # -- the scan -----------------------------------------------------------------------------

    def _scan(self) -> None:
        text = self.text
        plan = self.plan
        rules = plan.rules
        resolve = plan.rule
        edits = self.edits
        found = self.found
        skip_until = 0
        off_start: int | None = None
        scanner = plan.scanner_for(text)
        for match in scanner.finditer(text):
            kind = match.lastgroup
            if kind is None:  # an identifier
                start = match.start()
                if off_start is not None or start < skip_until:
                    continue
                name = match.group()
                rule = rules.get(name, _UNRESOLVED)
                if rule is _UNRESOLVED:
                    rule = resolve(name)
                if rule is None:
                    continue
                if rule.plain:  # the common case: a name to rename (or keep) and report
                    if rule.replacement is not None:
                        edits.append((start, match.end(), rule.replacement))
                    found.append((start, name, rule))
                    continue
                if rule.outcome is None:
                    self.uses_device = True
                    continue
                if rule.outcome is Outcome.UNKNOWN:
                    if name not in self.own_names:
                        found.append((start, name, rule))
                        self.unknown_at.append((start, name))
                    continue
                if rule.namespace and not self._used_as_namespace(start, match.end()):
                    continue
                if rule.transform and self._member_of_hip_scope(start, plan.hip_scopes):
                    continue  # as the ns::Member rule left it: a transform is the global API's
                if rule.transform == ASSIGN_THROUGH_POINTER:
                    if _declared_here(text, start):
                        found.append((start, name, _own_definition(rule, name)))
                        continue
                    if not self._assign_through_pointer(match.end()):
                        found.append((start, name, _not_a_store_call(rule)))
                        continue
                elif rule.arity is not None:
                    rule = _by_arity(text, match.end(), rule)
                elif rule.transform or name in _WRAPPED_ARGUMENT:
                    skip_until = max(skip_until, self._call_transform(match.end(), rule, name))
                if rule.replacement is not None:
                    edits.append((start, match.end(), rule.replacement))
                found.append((start, name, rule))
            elif kind == "launch":
                if off_start is None:
                    self.launches.append(match.start())
            elif kind == "comment":
                start = match.start()
                if text.find("rocport", start, match.end()) == -1:
                    continue
                for offset, state in directives.controls(match.group()):
                    if state == "off" and off_start is None:
                        off_start = start + offset
                    elif state == "on" and off_start is not None:
                        self.off_spans.append((off_start, start + offset))
                        off_start = None
            elif kind == "include" and off_start is None and _at_line_start(text, match.start()):
                self._include(match)
            elif kind == "has_include" and off_start is None:
                self._header_name(match, "hpath")
        if off_start is not None:
            self.off_spans.append((off_start, len(text)))

    def _drop_own_declarations(self) -> None:
        """CUDA-looking names that this file declares (``cudaError_t cudaStat1``, ``void
        cudaCheck(...) {``, ``namespace cuda {`` for ``cuda::x``) are the project's, not
        unknown CUDA APIs."""
        if not self.unknown_at:
            return
        text = self.text
        own = {n for at, n in self.unknown_at if declared_at(text, at, at + len(n))}
        if "define" in text:
            own.update(macro_parameters(text).intersection(n for _, n in self.unknown_at))
        scopes = {n.partition("::")[0] for _, n in self.unknown_at if "::" in n}
        own.update(scope for scope in scopes if declares_namespace(text, scope))
        if own:
            self.found = [
                f
                for f in self.found
                if not (
                    f[2].outcome is Outcome.UNKNOWN
                    and (f[1] in own or f[1].partition("::")[0] in own)
                )
            ]

    def _keep_shim_defines(self) -> None:
        """``#define cudaX hipX``, a project's own HIP shim, stays as it is: renamed, it would be
        ``#define hipX hipX``, which replaces HIP's own definition of ``hipX``."""
        text = self.text
        shims = list(_SHIM_DEFINE.finditer(text))
        if not shims:
            return
        edit_at = {start: i for i, (start, _, _) in enumerate(self.edits)}
        kept = set()
        for match in shims:
            name = edit_at.get(match.start(1))
            if name is None or not _at_line_start(text, match.start()):
                continue
            body = edit_at.get(match.start(2))
            if self.edits[name][2] == (match.group(2) if body is None else self.edits[body][2]):
                kept.add(name)
        if kept:
            self.edits = [edit for i, edit in enumerate(self.edits) if i not in kept]

    @property
    def own_names(self) -> frozenset[str]:
        """Macros this file defines: a CUDA-looking prefix does not make them unknown CUDA APIs
        (``#define CUDA_CHECK``; ``options.local_names``, the tree's, are left out by the plan's
        rules already)."""
        if self._own_names is None:
            self._own_names = frozenset(defined_macros(self.text))
        return self._own_names

    def _used_as_namespace(self, start: int, end: int) -> bool:
        return bool(
            _SCOPE_AFTER.match(self.text, end)
            or _NAMESPACE_BEFORE.search(self.text, max(0, start - 40), start)
        )

    def _member_of_hip_scope(self, start: int, scopes: frozenset[str]) -> bool:
        """Whether the name at ``start`` follows ``scope::`` for one of ``scopes``."""
        before = _SCOPE_BEFORE.search(self.text, max(0, start - 80), start)
        return before is not None and before.group(1) in scopes

    def _call_transform(self, end: int, rule: _Rule, name: str) -> int:
        """Rewrite the arguments of the call after ``end``; return the offset to skip up to."""
        text = self.text
        paren = skip_space(text, end)
        if paren >= len(text) or text[paren] != "(":
            return 0
        call = split_call(text, paren, self.calls)
        if call is None or not call[0]:
            return 0
        args, _close = call
        if rule.transform == HIPBLAS_DATATYPE:
            positions = datatype_positions(name)
            self.datatype_args += [
                (*trim(text, a), positions[i]) for i, a in enumerate(args) if i in positions
            ]
            return 0
        if rule.transform == DROP_FIRST_ARG:
            first = trim(text, args[0])
            if len(args) < 2:
                return 0
            # Remove "mask," and the spaces after it; keep its comments and newlines.
            cut_end = args[1][0]
            while cut_end < len(self.text) and self.text[cut_end] in " \t":
                cut_end += 1
            self.edits.append((first[0], cut_end, comments_and_newlines(text, first[0], cut_end)))
            return cut_end
        wrapped = _WRAPPED_ARGUMENT.get(name)
        if wrapped is None or wrapped[0] >= len(args):
            return 0
        index, wrapper, already = wrapped
        arg_start, arg_end = trim(text, _template_argument(text, args, index))
        if arg_start < arg_end and not already.match(self.text, arg_start):
            self.edits.append((arg_start, arg_start, wrapper + "("))
            self.edits.append((arg_end, arg_end, ")"))
        return 0

    def _hipblas_datatypes(self) -> None:
        """The data-type arguments of hipBLAS < 2.0 Ex calls: ``HIP_R_32F`` (the rename of
        ``CUDA_R_32F``) becomes ``HIPBLAS_R_32F``; any other argument is reported, since a
        ``hipDataType`` does not convert to ``hipblasDatatype_t``."""
        text = self.text
        at = {(start, end): i for i, (start, end, _) in enumerate(self.edits)}
        rules = {offset: i for i, (offset, _, _) in enumerate(self.found)}
        for start, end, report in self.datatype_args:
            edit = at.get((start, end))
            value = hipblas_value(self.edits[edit][2] if edit is not None else text[start:end])
            if value is None and not report:
                continue
            if value is None:
                note = f"{NOTE_DATATYPE}: pass a HIPBLAS_R_* value or a hipblasDatatype_t"
                rule = _Rule(None, Outcome.UNSUPPORTED, "cublas", note, plain=True)
                if start in rules:
                    offset, name, _ = self.found[rules[start]]
                    self.found[rules[start]] = (offset, name, rule)
                else:
                    self.found.append((start, text[start:end], rule))
                continue
            if edit is None:  # already a hipblasDatatype_t value
                continue
            self.edits[edit] = (start, end, value)
            if start in rules:
                offset, name, old = self.found[rules[start]]
                rule = _Rule(
                    value, Outcome.TRANSLATED, old.family, NOTE_DATATYPE, value, plain=True
                )
                self.found[rules[start]] = (offset, name, rule)

    def _assign_through_pointer(self, end: int) -> bool:
        """Rewrite the arguments of ``name(p, v)`` after ``end`` to ``(*(p) = (v))`` (the name
        becomes ``(void)``); False, with nothing changed, when it is not such a call."""
        text = self.text
        paren = skip_space(text, end)
        if paren >= len(text) or text[paren] != "(":
            return False
        call = split_call(text, paren, self.calls)
        if call is None or len(call[0]) != 2:
            return False
        (ptr_start, ptr_end), (value_start, value_end) = (trim(text, a) for a in call[0])
        if ptr_start >= ptr_end or value_start >= value_end:
            return False
        comma = call[0][0][1]
        self.edits += [
            (ptr_start, ptr_start, "*("),
            (ptr_end, ptr_end, ")"),
            (comma, comma + 1, " ="),
            (value_start, value_start, "("),
            (value_end, value_end, ")"),
        ]
        return True

    def _include(self, match: re.Match[str]) -> None:
        istart, iend = match.span("ipath")
        inner = self.text[istart + 1 : iend - 1]
        if inner in _RUNTIME_HEADERS:
            self._hip_include(inner)
            return
        rule = self._header_name(match, "ipath")
        if rule is not None and rule.hip is not None:
            self._hip_include(rule.hip)

    def _header_name(self, match: re.Match[str], group: str) -> _Rule | None:
        """Map and report the header named by ``group`` of ``match`` (an ``#include``, or a
        ``__has_include`` that must ask for the header the port includes instead)."""
        istart, iend = match.span(group)
        inner = self.text[istart + 1 : iend - 1]
        rule = self.plan.include_rule(inner, angled=self.text[istart] == "<")
        if rule is None:
            return None
        self.found.append((istart + 1, inner, rule))
        if rule.replacement is not None:
            self.edits.append((istart + 1, iend - 1, rule.replacement))
        return rule

    def _hip_include(self, hip: str) -> None:
        if self.first_hip_include is None:
            self.first_hip_include = hip
        if hip in _RUNTIME_HEADERS:
            self.runtime_includes.add(hip)

    # -- launches -----------------------------------------------------------------------------

    def _launches(self) -> None:
        ggl = self.options.launch == "ggl"
        for open_ in self.launches:
            config = launch_config(self.text, open_, self.unclosed)
            if config is None:
                continue
            self.uses_cuda = self.uses_device = True
            launch = parse_launch(self.text, open_, self.unmatched) if ggl else None
            if launch is None:  # "<< <...>> >" (nvcc accepts it, clang does not)
                self.edits.extend(spaced_edits(self.text, open_, config))
            if launch is not None:
                self.edits.extend(ggl_edits(self.text, launch))
                hip, note = "hipLaunchKernelGGL", None
            elif ggl:
                hip, note = _LAUNCH_NAME, "kept <<<>>>: not recognised as a launch to convert"
            else:
                hip, note = _LAUNCH_NAME, None
            rule = _Rule(None, Outcome.TRANSLATED, "launch", note, hip)
            self.found.append((open_, _LAUNCH_NAME, rule))

    # -- output -------------------------------------------------------------------------------

    def _apply(self) -> str:
        edits = self.edits
        if not edits:
            return self.text
        edits.sort(key=_SPAN)
        text = self.text
        pieces: list[str] = []
        add = pieces.append  # once, not per edit: a file may have thousands
        last = 0
        for start, end, replacement in edits:
            if start < last:  # overlaps an earlier edit (cannot happen for well-formed input)
                continue
            add(text[last:start])
            add(replacement)
            last = end
        pieces.append(text[last:])
        out = "".join(pieces)
        return text if out == text else out

    def _needs_runtime_header(self) -> bool:
        """nvcc includes cuda_runtime.h before anything else; HIP code must include
        hip_runtime.h itself, before the translated headers that rely on it (HIP 5.2's
        hip_cooperative_groups.h does). Host-only code may make do with hip_runtime_api.h."""
        if not (self.uses_cuda or self.uses_device):
            return False
        if self.first_hip_include == RUNTIME_HEADER:
            return False
        return self.uses_device or not self.runtime_includes

    def _needs_math_h(self) -> bool:
        """The file calls a C99 classification macro unqualified (``isnan(x)``, not
        ``std::isnan(x)``) and does not include <math.h> itself."""
        text = self.text
        if _MATH_H_IS_NAME.search(text) is None and not any(n in text for n in _MATH_H_OTHERS):
            return False
        return _calls_unqualified(text, _MATH_H_NAMES) and _MATH_H_INCLUDE.search(text) is None


def _calls_unqualified(text: str, names: tuple[str, ...]) -> bool:
    """Whether ``text`` calls one of ``names`` unqualified: no word character, ``::``, ``.``,
    ``->`` or ``$`` right before it, ``(`` after it. Each name is found with ``str.find``: a
    regex that starts with a lookbehind is tried at every character of the file."""
    for name in names:
        at = text.find(name)
        while at != -1:
            before = text[at - 1] if at else " "
            if not (before.isalnum() or before in "_:.>$") and _OPEN_PAREN.match(
                text, at + len(name)
            ):
                return True
            at = text.find(name, at + 1)
    return False


#: the word that ends a type right before a declared name (``void __stcs(``), and the
#: keywords after which a name is called instead
_TYPE_BEFORE = re.compile(r"(\w+)[ \t\r\n]*\Z")
_CALL_KEYWORDS = frozenset({"return", "else", "do", "case", "throw"})
_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)


def _declared_here(text: str, start: int) -> bool:
    """Whether the name at ``start`` is declared or defined there (a type right before it; a
    comment in between is not one: ``// set to zero`` before ``__stcs(p, 0)`` is a call)."""
    window = _COMMENT.sub(" ", text[max(0, start - 64) : start])
    before = _TYPE_BEFORE.search(window)
    return before is not None and before.group(1) not in _CALL_KEYWORDS


def _by_arity(text: str, end: int, rule: _Rule) -> _Rule:
    """The rule for the call after ``end`` given its argument count: ``cudaEventCreate(&e,
    flags)`` -> ``hipEventCreateWithFlags`` (HIP has no two-argument ``hipEventCreate``)."""
    paren = skip_space(text, end)
    call = split_call(text, paren) if paren < len(text) and text[paren] == "(" else None
    if call is None:
        return rule
    spans = [trim(text, a) for a in call[0]]
    count = len(spans) if any(start < stop for start, stop in spans) else 0
    hip = dict(rule.arity or ()).get(count)
    if hip is None:
        return rule
    note = f"{count} arguments: {hip}"
    return _Rule(hip, rule.outcome, rule.family, note, hip)


def _own_definition(rule: _Rule, name: str) -> _Rule:
    note = f"the project declares its own {name} here: kept as written"
    return _Rule(None, Outcome.TRANSLATED, rule.family, note, name, plain=True)


def _not_a_store_call(rule: _Rule) -> _Rule:
    """A store intrinsic that is not called as ``name(p, v)`` (taken by address, say)."""
    note = "not a two-argument call, so not rewritten: write *p = v"
    return _Rule(None, Outcome.UNSUPPORTED, rule.family, note, plain=True)


#: sort keys (stable sorts: ties keep their order): an edit's span, a found name's offset
_SPAN = itemgetter(0, 1)
_OFFSET = itemgetter(0)


def defined_macros(text: str) -> set[str]:
    """Names ``text`` defines with ``#define`` (for :attr:`PortOptions.local_names`, when a
    project's headers define CUDA-looking macros such as ``CUDA_CHECK``)."""
    return set(_DEFINE.findall(text))


def _at_line_start(text: str, offset: int) -> bool:
    """Whether only spaces and tabs precede ``offset`` on its line (looking back only over
    them, so that many ``#`` on one long line cost linear time)."""
    before = offset - 1
    while before >= 0 and text[before] in " \t":
        before -= 1
    return before < 0 or text[before] == "\n" or (before == 0 and text[0] == directives.BOM)


#: Runtime calls taking a device symbol, with the index of that argument, where HIP wants
#: ``HIP_SYMBOL(sym)``: ``cudaMemcpyToSymbol(sym, src, …)``, ``cudaGetSymbolAddress(&p, sym)``.
_SYMBOL_APIS = {
    "cudaMemcpyToSymbol": 0,
    "cudaMemcpyToSymbolAsync": 0,
    "cudaMemcpyFromSymbol": 1,
    "cudaMemcpyFromSymbolAsync": 1,
    "cudaGetSymbolAddress": 1,
    "cudaGetSymbolSize": 1,
}
#: Runtime calls taking a kernel, with the index of that argument: CUDA's runtime header
#: overloads them with ``template <class T> …(T* entry, …)``, HIP declares only ``const void*``,
#: to which a function does not convert in C++ (``hipFuncSetAttribute(kernel, …)``: "no
#: matching function"), so the kernel is cast
_FUNCTION_APIS = {
    "cudaFuncSetAttribute": 0,
    "cudaFuncGetAttributes": 1,
    "cudaFuncSetCacheConfig": 0,
    "cudaFuncSetSharedMemConfig": 0,
    "cudaLaunchKernel": 0,
}
_FUNCTION_CAST = "reinterpret_cast<const void*>"
#: an argument that starts as a template-id, ``kernel<`` or ``ns::kernel<``
_TEMPLATE_ID = re.compile(r"\s*(?:::\s*)?[A-Za-z_]\w*(?:\s*::\s*[A-Za-z_]\w*)*\s*<(?![<=])")
#: the angle brackets that count in a template argument list (not ``->``, ``<=``, ``>=``, nor
#: those inside parentheses: ``k<(x > y)>``), and the brackets that nest
_ANGLE = re.compile(r"->|<=|>=|[<>()\[\]{}]")
_NESTING = {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}


def _template_argument(text: str, args: list[tuple[int, int]], index: int) -> tuple[int, int]:
    """The span of argument ``index``, taken over the arguments that the commas of its template
    argument list split off: ``kernel<T, 4, true>`` is one argument, not three. The span as
    split where the argument is no template-id or its brackets do not balance."""
    start, end = args[index]
    if not _TEMPLATE_ID.match(text, start, end):
        return args[index]
    depth = nested = 0
    for last in range(index, len(args)):
        for match in _ANGLE.finditer(text, args[last][0], args[last][1]):
            char = match.group()
            if char in _NESTING:
                nested += _NESTING[char]
            elif not nested and char in "<>":
                depth += 1 if char == "<" else -1
        if depth <= 0:
            return (start, args[last][1]) if depth == 0 else args[index]
    return args[index]


#: an argument that is already a symbol / already a void pointer cast is left as it is
_SYMBOL_OPEN = re.compile(r"HIP_SYMBOL\s*\(")
_VOID_POINTER_CAST = re.compile(
    r"(?:reinterpret_cast|static_cast)\s*<\s*(?:const\s+)?void\s*\*\s*>"
    r"|\(\s*(?:const\s+)?void\s*\*\s*\)"
)
#: CUDA call -> (argument index, wrapper, what an argument already wrapped starts with)
_WRAPPED_ARGUMENT = {
    **{name: (index, "HIP_SYMBOL", _SYMBOL_OPEN) for name, index in _SYMBOL_APIS.items()},
    **{name: (index, _FUNCTION_CAST, _VOID_POINTER_CAST) for name, index in _FUNCTION_APIS.items()},
}
