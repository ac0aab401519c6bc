"""Compare a CUDA function declaration with the HIP declaration a mapping renames it to.

A rename is only sound when every call that compiles against the CUDA declaration also
compiles against the HIP one: each CUDA signature (overloads and default arguments included)
must be accepted by one HIP signature, argument for argument, after the CUDA type names are
renamed by the mapping and typedefs are resolved on both sides. An argument is accepted when
its type is the parameter's type, or converts to it implicitly the way C++ converts arguments:
between arithmetic types, from an unscoped enum to an integer, from an object pointer to
``void*``; ``const``/``volatile`` are ignored, and a template parameter accepts anything.

``mismatch(cuda, hip, ...)`` returns ``None`` or a one-line reason; ``scripts/gen_mapping.py``
uses it to choose among rename candidates and ``scripts/check_mapping.py`` to verify the data.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from cdecls import Decl

Signature = tuple[tuple[str, ...], int]  # parameter types, number of trailing defaults

_DROP = frozenset(
    {
        "const",
        "volatile",
        "struct",
        "enum",
        "union",
        "class",
        "typename",
        "__restrict__",
        "__restrict",
        "restrict",
        "&",
    }
)
_ARITHMETIC = frozenset(
    {
        "int",
        "unsigned",
        "signed",
        "long",
        "short",
        "char",
        "bool",
        "float",
        "double",
        "size_t",
        "ssize_t",
        "ptrdiff_t",
        "intptr_t",
        "uintptr_t",
        "int8_t",
        "uint8_t",
        "int16_t",
        "uint16_t",
        "int32_t",
        "uint32_t",
        "int64_t",
        "uint64_t",
        "__int64",
    }
)
_TEMPLATE_PARAM = re.compile(r"[A-Z]\w{0,2}\Z|T[A-Z]\w*\Z|<any>\Z")
_IDENT = re.compile(r"[A-Za-z_]\w*\Z")
_CAPS = re.compile(r"_*[A-Z][A-Z0-9_]*\Z")


def signatures(decl: Decl) -> list[Signature]:
    """Every declared signature of a function (the first declaration, then overloads)."""
    if decl.params is None:
        return []
    return [(decl.params, decl.defaults), *decl.overloads]


def accepts(sig: Signature) -> range:
    params, defaults = sig
    return range(len(params) - defaults, len(params) + 1)


def render(sig: Signature) -> str:
    params, defaults = sig
    parts = [
        *params[: len(params) - defaults],
        *(f"{p} = ..." for p in params[len(params) - defaults :]),
    ]
    return "(" + ", ".join(parts) + ")"


class TypeSystem:
    """Normalizes type strings: CUDA names renamed, typedefs resolved, qualifiers dropped."""

    def __init__(
        self,
        rename: Callable[[str], str],
        decls: Mapping[str, Decl],
        cuda_decls: Mapping[str, Decl] | None = None,
    ) -> None:
        self.rename = rename
        self.decls = decls
        self.cuda_decls = cuda_decls or {}
        self._cache: dict[tuple[str, bool], tuple[str, ...]] = {}

    def _resolve(self, tok: str, depth: int = 0) -> list[str]:
        d = self.decls.get(tok)
        if d is None or depth > 6 or d.kind not in ("type", "alias", "enum"):
            return [tok]
        if d.pointer_to:
            return [*self._resolve(d.pointer_to, depth + 1), "*"]
        if d.alias_of and d.alias_of != tok:
            return self._resolve(d.alias_of, depth + 1)
        return [tok]

    def norm(self, text: str, cuda: bool) -> tuple[str, ...]:
        key = (text, cuda)
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        out: list[str] = []
        for tok in text.split():
            if tok in _DROP:
                continue
            if out and out[-1] == "*" and _IDENT.match(tok):
                continue  # a parameter name after "* const" ("T *const A[]")
            known = self.decls.get(tok)
            if known is not None and known.kind == "macro" and _CAPS.match(tok):
                continue  # an attribute macro (MAYBE_UNDEF)
            if cuda:
                renamed = self.rename(tok)
                if renamed == tok and tok in self.cuda_decls and _IDENT.match(tok):
                    tok = "<cuda:" + tok + ">"  # a CUDA type with no HIP name
                tok = renamed if renamed != tok else tok
            if _IDENT.match(tok) and tok not in self.decls and tok not in (*_ARITHMETIC, "void"):
                tok = "<any>"  # not declared by HIP: a template parameter
            out.extend(self._resolve(tok))
        if out and all(t in _ARITHMETIC for t in out):
            out = ["<arith>"]
        result = self._cache[key] = tuple(out)
        return result

    def is_enum(self, toks: tuple[str, ...]) -> bool:
        if len(toks) != 1:
            return False
        d = self.decls.get(toks[0])
        return d is not None and d.kind == "enum"


def _pointer_depth(toks: tuple[str, ...]) -> int:
    return sum(1 for t in toks if t == "*")


def _converts(ts: TypeSystem, arg: str, param: str) -> bool:
    a, p = ts.norm(arg, True), ts.norm(param, False)
    if a == p:
        return True
    if any(_TEMPLATE_PARAM.match(t) for t in (*a, *p)):
        return True  # a template parameter (CUDA's or HIP's) takes the other side's type
    if p == ("<arith>",) and (a == ("<arith>",) or ts.is_enum(a)):
        return True
    # other types, and an integer where HIP wants an enum, do not convert
    return p == ("void", "*") and _pointer_depth(a) >= 1


def mismatch(cuda: Decl, hip: Decl, ts: TypeSystem) -> tuple[bool, str | None]:
    """Whether some CUDA call form compiles against ``hip``, and the first CUDA form that does
    not (``None`` when every form does): ``(True, None)`` is a sound rename, ``(True, why)``
    a rename that leaves some overloads behind, ``(False, why)`` no rename at all."""
    hsigs = signatures(hip)
    if not hsigs or cuda.params is None:
        return True, None
    failed = None
    passed = checked = 0
    for csig in signatures(cuda):
        if any(")" in p or "(" in p for p in csig[0]):
            continue  # not parsed as a parameter list (a macro-built declaration)
        if any(_TEMPLATE_PARAM.match(t) for p in csig[0] for t in p.split()):
            continue  # a CUDA template convenience overload: its C form is checked
        checked += 1
        if any(_accepted(ts, csig, hsig) for hsig in hsigs):
            passed += 1
        elif failed is None:
            failed = f"CUDA {render(csig)} vs HIP " + " | ".join(render(h) for h in hsigs[:4])
    return (passed > 0 or not checked), failed


def _accepted(ts: TypeSystem, csig: Signature, hsig: Signature) -> bool:
    cparams = csig[0]
    hrange = accepts(hsig)
    for n in accepts(csig):
        if n not in hrange:
            return False
    return all(_converts(ts, a, p) for a, p in zip(cparams, hsig[0], strict=False))
