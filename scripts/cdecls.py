"""Declared identifiers of C/C++ headers, found by a brace-aware token scan (no compiler needed).

``scan_headers(root, patterns)`` reads every header that matches ``patterns`` under ``root`` and
returns ``{name: Decl}`` for what the headers declare at namespace scope: functions (with their
parameter types), typedef/using aliases, struct/class/union/enum tags, enumerators, macros and
``extern``/``constexpr`` variables. C++ names carry their namespace path (``hipcub::DeviceReduce``);
inline namespaces and reserved ``_X`` namespaces are transparent. Object-like macros that open or
close namespaces (``BEGIN_HIPCUB_NAMESPACE``, ``CUB_NAMESPACE_BEGIN``) are expanded.

Every ``#if`` branch is read (the union of all configurations), except ``#if 0`` blocks. That
makes the HIP side lenient (a name declared under ``HIP_ENABLE_WARP_SYNC_BUILTINS`` counts as
declared) and is why the mapping notes such guards by hand.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

_STRIP = re.compile(
    r"//(?:[^\n\\]|\\.|\\\n)*|/\*.*?\*/|R\"(\w*)\(.*?\)\1\"|\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*'",
    re.S,
)
_TOKEN = re.compile(r"[A-Za-z_]\w*|\d[\w.']*|::|->|\.\.\.|\"\"|\S")
_DEFINE = re.compile(r"#\s*define\s+([A-Za-z_]\w*)(\()?(.*)", re.S)
_IF = re.compile(r"#\s*(if|ifdef|ifndef|elif|else|endif)\b(.*)", re.S)
_CONTINUATION = re.compile(r"\\[ \t]*\r?\n")
_INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.M)
_IDENT = re.compile(r"[A-Za-z_]\w*\Z")
_ALL_CAPS = re.compile(r"_*[A-Z][A-Z0-9_]*\Z")
_DUNDER = re.compile(r"__\w+__\Z")  # an attribute macro such as __device_builtin__

#: Identifiers followed by ``(`` that are attributes or operators, never the declared function.
_NOT_FUNCTION = frozenset(
    [
        "__attribute__",
        "__declspec",
        "__align__",
        "alignas",
        "alignof",
        "decltype",
        "sizeof",
        "noexcept",
        "throw",
        "typeof",
        "__launch_bounds__",
        "__builtin_align__",
        "static_assert",
        "defined",
        "operator",
        "if",
        "while",
        "for",
        "switch",
        "return",
        "__pragma",
        "_Pragma",
        "__typeof__",
        "__asm__",
        "asm",
    ]
)
_KEYWORDS = frozenset(
    [
        "typedef",
        "struct",
        "class",
        "union",
        "enum",
        "namespace",
        "using",
        "template",
        "typename",
        "extern",
        "static",
        "inline",
        "const",
        "volatile",
        "unsigned",
        "signed",
        "int",
        "long",
        "short",
        "char",
        "float",
        "double",
        "void",
        "bool",
        "auto",
        "constexpr",
        "friend",
        "virtual",
        "explicit",
        "public",
        "private",
        "protected",
        "return",
        "operator",
        "new",
        "delete",
        "this",
    ]
)
_TAG_KEYWORDS = ("struct", "class", "union", "enum")


@dataclass(slots=True)
class Decl:
    """One declared name: its kind, the header (relative to the scanned root) and, for a
    function, the parameter type strings."""

    kind: str
    header: str
    params: tuple[str, ...] | None = None
    deprecated: bool = False
    alias_of: str | None = None
    #: for a function: how many trailing parameters have a default argument
    defaults: int = 0
    #: for ``typedef struct X* Y``: ``X``
    pointer_to: str | None = None
    #: further declarations of an overloaded function: (params, defaults) each
    overloads: tuple[tuple[tuple[str, ...], int], ...] = ()


@dataclass(slots=True)
class _Scope:
    kind: str  # ns | extern | class | enum | block
    saved: list[str] = field(default_factory=list)
    resume: bool = False  # after "}", continue the saved statement (typedef struct {...} X;)
    path: str = ""


def _strip(text: str) -> str:
    def repl(m: re.Match[str]) -> str:
        s = m.group(0)
        if s.startswith(("/", "R")) or s[0] == "'":
            return " " + "\n" * s.count("\n") if s[0] == "/" else " "
        return '""'

    return _STRIP.sub(repl, text)


def _logical_lines(text: str) -> list[str]:
    return _CONTINUATION.sub(" ", text).split("\n")


class HeaderScanner:
    """Collects declarations over many headers; macros are gathered first so that namespace
    macros defined in one header expand in the others."""

    def __init__(self) -> None:
        self.decls: dict[str, Decl] = {}
        self.ns_macros: dict[str, list[str]] = {}
        self.aliases: dict[str, str] = {}
        #: macros with an empty definition in some configuration: optional wrappers, not expanded
        self.empty_macros: set[str] = set()
        #: macros that expand to attributes (CUDNN_DEPRECATED -> __attribute__((deprecated)))
        self.attr_macros: set[str] = set()
        #: macros whose expansion marks a declaration deprecated
        self.deprecating_macros: set[str] = set()
        #: function-like macros that expand to declarations (MIOPEN_DECLARE_OBJECT(name))
        self.decl_macros: dict[str, tuple[list[str], list[str]]] = {}

    # -- preprocessing -------------------------------------------------------------------
    def _code_lines(self, text: str, header: str) -> list[str]:
        """Drop directives (recording macros) and ``#if 0`` blocks; return the code lines."""
        out: list[str] = []
        skip_depth = 0  # > 0 while inside #if 0 (or a skipped alternative branch)
        depth = 0
        braces = 0  # net "{" minus "}" of the code lines kept so far
        #: per open #if: the brace count at its start, and whether its first branch was
        #: unbalanced (then the other branches are alternatives of the same opening text:
        #: "#if A  x = {  #else  static x = {  #endif" - reading both would open two scopes)
        groups: list[list] = []
        for line in _logical_lines(_strip(text)):
            s = line.lstrip()
            if not s.startswith("#"):
                if not skip_depth:
                    out.append(line)
                    braces += line.count("{") - line.count("}")
                continue
            m = _IF.match(s)
            if m:
                word, rest = m.group(1), m.group(2).strip()
                if word.startswith("if"):
                    depth += 1
                    groups.append([braces, None])
                    if not skip_depth and word == "if" and rest in ("0", "(0)"):
                        skip_depth = depth
                elif word == "endif":
                    if skip_depth == depth:
                        skip_depth = 0
                    depth -= 1
                    if groups:
                        groups.pop()
                elif skip_depth == depth and groups and groups[-1][1] is None:
                    skip_depth = 0  # #else / #elif of an #if 0
                elif groups and not skip_depth:
                    start, unbalanced = groups[-1]
                    if unbalanced is None:
                        unbalanced = groups[-1][1] = braces != start
                    if unbalanced:
                        skip_depth = depth
                continue
            if skip_depth:
                continue
            m = _DEFINE.match(s)
            if m:
                name, fn_like, body = m.group(1), m.group(2), m.group(3).strip()
                body_tokens = _TOKEN.findall(body)
                if fn_like and ")" in body:
                    params, _, fbody = body.partition(")")
                    ftoks = _TOKEN.findall(fbody)
                    if {"typedef", "struct"} & set(ftoks):
                        self.decl_macros[name] = ([x.strip() for x in params.split(",")], ftoks)
                if not fn_like and not body_tokens:
                    self.empty_macros.add(name)
                if body_tokens[:1] in (["__attribute__"], ["["], ["__declspec"]) or any(
                    "DEPRECATED" in t for t in body_tokens[:1]
                ):
                    self.attr_macros.add(name)
                if "deprecated" in body.lower():
                    self.deprecating_macros.add(name)
                opens_or_closes = "namespace" in body_tokens or (
                    body_tokens and set(body_tokens) <= {"}", ";"}
                )
                if not fn_like and opens_or_closes:
                    self.ns_macros[name] = body_tokens
                if _IDENT.match(body):
                    self.aliases[name] = body
                self._add(
                    name, Decl("macro", header, alias_of=body if _IDENT.match(body) else None)
                )
        return out

    def _deprecated(self, body: list[str]) -> bool:
        return any(
            "DEPRECATED" in t or t == "deprecated" or t in self.deprecating_macros for t in body
        )

    def _add(self, name: str, decl: Decl) -> None:
        old = self.decls.get(name)
        if old is None or (old.kind == "macro" and decl.kind != "macro"):
            self.decls[name] = decl
        elif old.kind == decl.kind == "function" and decl.params is not None:
            sig = (decl.params, decl.defaults)
            if sig != (old.params, old.defaults) and sig not in old.overloads:
                old.overloads = (*old.overloads, sig)

    def _expand_calls(self, tokens: list[str]) -> list[str]:
        """Expand declaration macros: substitute the arguments, paste ``##``."""
        out: list[str] = []
        k = 0
        while k < len(tokens):
            t = tokens[k]
            if t in self.decl_macros and k + 1 < len(tokens) and tokens[k + 1] == "(":
                depth, j, args, cur = 0, k + 1, [], []
                while j < len(tokens):
                    x = tokens[j]
                    if x == "(":
                        depth += 1
                        if depth == 1:
                            j += 1
                            continue
                    elif x == ")":
                        depth -= 1
                        if depth == 0:
                            break
                    if x == "," and depth == 1:
                        args.append(cur)
                        cur = []
                    else:
                        cur.append(x)
                    j += 1
                args.append(cur)
                params, body = self.decl_macros[t]
                subst = dict(zip(params, args, strict=False))
                pieces: list[str] = []
                for b in body:
                    pieces.extend(subst.get(b, [b]))
                expanded: list[str] = []
                m = 0
                while m < len(pieces):
                    if (
                        pieces[m] == "#"
                        and m + 1 < len(pieces)
                        and pieces[m + 1] == "#"
                        and expanded
                        and m + 2 < len(pieces)
                    ):
                        expanded[-1] += pieces[m + 2]
                        m += 3
                        continue
                    expanded.append(pieces[m])
                    m += 1
                out.extend(expanded)
                k = j + 1
                continue
            out.append(t)
            k += 1
        return out

    def _expand(self, tokens: list[str], depth: int = 0) -> list[str]:
        if depth == 0:
            for name in self.empty_macros:
                self.ns_macros.pop(name, None)
            if self.decl_macros and any(t in self.decl_macros for t in tokens):
                tokens = self._expand_calls(tokens)
        if depth > 4 or not any(t in self.ns_macros for t in tokens):
            return tokens
        out: list[str] = []
        for t in tokens:
            if t in self.ns_macros:
                out.extend(self._expand(self.ns_macros[t], depth + 1))
            else:
                out.append(t)
        return out

    # -- scanning --------------------------------------------------------------------------
    def scan_file(self, path: Path, header: str) -> None:
        text = path.read_text(encoding="utf-8", errors="replace")
        lines = self._code_lines(text, header)
        tokens = self._expand(_TOKEN.findall("\n".join(lines)))
        self._scan_tokens(tokens, header)

    def _scan_tokens(self, tokens: list[str], header: str) -> None:
        stack: list[_Scope] = []
        stmt: list[str] = []
        item: list[str] = []  # current enumerator item
        paren = 0

        def ns_path() -> str | None:
            parts = []
            for sc in stack:
                if sc.kind == "ns":
                    if sc.path:
                        parts.append(sc.path)
                elif sc.kind != "extern":
                    return None
            return "::".join(parts)

        def qual(name: str, path: str) -> str:
            return f"{path}::{name}" if path else name

        for tok in tokens:
            top = stack[-1].kind if stack else "ns"
            if top == "enum":
                if tok in "([":
                    paren += 1
                elif tok in ")]":
                    paren -= 1
                if tok == "}" or (tok == "," and paren == 0):
                    if (
                        item
                        and _IDENT.match(item[0])
                        and (path := self._enum_path(stack)) is not None
                    ):
                        self._add(qual(item[0], path), Decl("enumerator", header))
                    item = []
                    if tok == ",":
                        continue
                elif tok == "{":
                    stack.append(_Scope("block"))
                    continue
                else:
                    item.append(tok)
                    continue
            if top in ("class", "block") and tok not in "{}":
                continue
            if tok == "{":
                path = ns_path()
                if path is None:  # inside a class or a body
                    stack.append(_Scope("block"))
                    continue
                stack.append(self._open(stmt, path, header, qual))
                scope = stack[-1]
                stmt = stmt if scope.resume else []
                if scope.kind == "enum":
                    item, paren = [], 0
                continue
            if tok == "}":
                if not stack:
                    stmt = []
                    continue
                scope = stack.pop()
                stmt = scope.saved + ["{}"] if scope.resume else []
                continue
            if tok == ";":
                path = ns_path()
                if path is not None:
                    self._statement(stmt, path, header, qual)
                stmt = []
                continue
            stmt.append(tok)

    def _enum_path(self, stack: list[_Scope]) -> str | None:
        # enumerators of an unscoped enum live in the enclosing namespace
        parts = []
        for sc in stack[:-1]:
            if sc.kind == "ns":
                if sc.path:
                    parts.append(sc.path)
            elif sc.kind != "extern":
                return None
        return "::".join(parts)

    def _open(self, stmt: list[str], path: str, header: str, qual) -> _Scope:
        body = _drop_macros(_drop_template(stmt))
        if body[:1] == ["namespace"] or body[:2] == ["inline", "namespace"]:
            inline = body[0] == "inline"
            names = [t for t in body if _IDENT.match(t) and t not in ("inline", "namespace")]
            name = "::".join(n for n in names if not n.startswith("_"))
            if inline or "(" in body:
                name = ""
            return _Scope("ns", path=name)
        if body[-2:] == ["extern", '""'] or body == ["extern"]:
            return _Scope("extern")
        fn = _function_name(body)
        tag = next((t for t in body if t in _TAG_KEYWORDS), None)
        if tag and fn is None:
            name = _tag_name(body, tag)
            if name:
                self._add(
                    qual(name, path),
                    Decl(
                        "enum" if tag == "enum" else "type",
                        header,
                        deprecated=self._deprecated(body),
                    ),
                )
            return _Scope("enum" if tag == "enum" else "class", saved=list(stmt), resume=True)
        if fn is not None and "=" not in body[: body.index(fn)]:
            self._function(body, fn, path, header, qual)
            return _Scope("block")
        if "operator" in body or _ends_with_parameters(body):
            return _Scope("block")  # operator or macro-named function body: no ";" follows
        return _Scope("block", saved=list(stmt), resume=True)

    def _function(self, body: list[str], fn: str, path: str, header: str, qual) -> None:
        i = body.index(fn)
        if i > 0 and body[i - 1] in ("::", "~", "."):  # out-of-line member definition
            return
        params, defaults = _params(body, i + 1)
        self._add(
            qual(fn, path),
            Decl(
                "function",
                header,
                params=params,
                deprecated=self._deprecated(body),
                defaults=defaults,
            ),
        )

    def _statement(self, stmt: list[str], path: str, header: str, qual) -> None:
        body = _drop_macros(_drop_template(stmt))
        if not body or body[0] in ("static_assert", "friend"):
            return
        if body[0] == "__extension__":
            body = body[1:]
        if body[:1] == ["typedef"]:
            if (
                len(body) > 3
                and body[1] in _TAG_KEYWORDS
                and _IDENT.match(body[2])
                and body[3] != "{}"
            ):
                # "typedef struct hipArray* hipArray_t;" declares the tag too ([basic.scope.pdecl])
                self._add(
                    qual(body[2], path), Decl("enum" if body[1] == "enum" else "type", header)
                )
            names = _typedef_names(body, self.attr_macros | self.empty_macros)
            skip = self.attr_macros | self.empty_macros
            plain = [
                t
                for t in body[1:-1]
                if t not in _TAG_KEYWORDS and t not in skip and not _DUNDER.match(t)
            ]
            target = plain[0] if len(plain) == 1 and _IDENT.match(plain[0]) else None
            # "typedef struct ihipEvent_t* hipEvent_t;": a pointer to one named type
            pointee = plain[0] if plain[1:] == ["*"] and _IDENT.match(plain[0]) else None
            for name in names:
                self._add(
                    qual(name, path),
                    Decl(
                        "type",
                        header,
                        deprecated=self._deprecated(body),
                        alias_of=target,
                        pointer_to=pointee,
                    ),
                )
            return
        if body[0] == "using":
            if len(body) > 2 and body[1] != "namespace" and "=" in body:
                self._add(
                    qual(body[1], path), Decl("type", header, deprecated=self._deprecated(body))
                )
            elif len(body) > 1 and body[1] != "namespace" and _IDENT.match(body[-1]):
                self._add(qual(body[-1], path), Decl("alias", header))
            return
        fn = _function_name(body)
        tag = next((t for t in body if t in _TAG_KEYWORDS), None)
        if fn is not None and "=" not in body[: body.index(fn)]:
            self._function(body, fn, path, header, qual)
            return
        if tag and "{}" not in body and body[0] in (*_TAG_KEYWORDS, "extern", "template"):
            name = _tag_name(body, tag)  # a forward declaration such as "struct cusparseContext;"
            if name and len([t for t in body if _IDENT.match(t)]) <= 4:
                self._add(qual(name, path), Decl("enum" if tag == "enum" else "type", header))
                return
        stop = next((k for k, t in enumerate(body) if t in ("=", "[", "{}")), len(body))
        names = [t for t in body[:stop] if _IDENT.match(t) and t not in _KEYWORDS]
        if names and (len(names) > 1 or "{}" in body):
            self._add(qual(names[-1], path), Decl("variable", header))


def _ends_with_parameters(body: list[str]) -> bool:
    """``... ) {`` (optionally ``) const {``): a function body, not an initializer."""
    k = len(body) - 1
    while k >= 0 and body[k] in ("const", "noexcept", "override", "final", "volatile"):
        k -= 1
    return k >= 0 and body[k] == ")" and "=" not in body


def _drop_macros(body: list[str]) -> list[str]:
    """Drop leading object-like macros (``DISABLE_WARNING_POP``, ``HIPCUB_EXPORT``)."""
    k = 0
    while k < len(body) - 1 and _ALL_CAPS.match(body[k]) and body[k + 1] != "(":
        k += 1
    return body[k:]


def _drop_template(stmt: list[str]) -> list[str]:
    """Remove leading ``template <...>`` clauses."""
    while stmt[:2] == ["template", "<"]:
        depth, k = 0, 1
        while k < len(stmt):
            t = stmt[k]
            if t == "<":
                depth += 1
            elif t == ">":
                depth -= 1
                if depth == 0:
                    break
            k += 1
        stmt = stmt[k + 1 :]
    return stmt


def _function_name(body: list[str]) -> str | None:
    depth = 0
    for k, t in enumerate(body[:-1]):
        if t == "(":
            depth += 1
        elif t == ")":
            depth -= 1
        elif (
            depth == 0
            and body[k + 1] == "("
            and _IDENT.match(t)
            and t not in _NOT_FUNCTION
            and t not in _KEYWORDS
            and not _ALL_CAPS.match(t)
        ):
            return t
    return None


def _params(body: list[str], start: int) -> tuple[tuple[str, ...], int]:
    """Parameter types of the list opening at ``body[start]``, and how many trailing ones
    have a default argument."""
    depth, cur, out = 0, [], []
    for t in body[start:]:
        if t in "(<[":
            depth += 1
            if depth == 1 and t == "(":
                continue
        elif t in ")>]":
            depth -= 1
            if depth == 0:
                break
        if t == "," and depth == 1:
            out.append(cur)
            cur = []
        else:
            cur.append(t)
    out.append(cur)
    types = []
    defaults = 0
    for p in out:
        if "=" in p:
            p = p[: p.index("=")]
            defaults += 1
        elif p:
            defaults = 0
        cut = next(
            (k for k in range(1, len(p) - 1) if _IDENT.match(p[k]) and p[k + 1] == "("), None
        )
        if cut is not None:  # a default-argument macro such as __dv(0)
            p = p[:cut]
        if "[" in p:
            p = p[: p.index("[")] + ["*"]
        named = len(p) > 1 and _IDENT.match(p[-1]) and p[-1] not in _KEYWORDS
        if named and any(t not in ("const", "volatile", "struct", "enum", "union") for t in p[:-1]):
            p = p[:-1]  # drop the parameter name
        if p:
            types.append(" ".join(p))
    if types == ["void"]:
        return (), 0
    return tuple(types), min(defaults, len(types))


def _tag_name(body: list[str], tag: str) -> str | None:
    k = body.index(tag) + 1
    name, depth = None, 0
    while k < len(body):
        t = body[k]
        if t == "(":
            depth += 1
        elif t == ")":
            depth -= 1
        elif depth == 0:
            if t in (":", "<", "{}", "final") or (t == "{"):
                break
            if (
                _IDENT.match(t)
                and t not in ("class", "struct")
                and not _ALL_CAPS.match(t)
                and t not in _NOT_FUNCTION
                and not t.startswith("__device_builtin")
            ):
                name = t
            elif (
                _IDENT.match(t) and _ALL_CAPS.match(t) and body[k + 1 : k + 2] in (["{"], [":"], [])
            ):
                name = t  # an upper-case tag such as CUDA_MEMCPY2D_st
        k += 1
    return name


def _typedef_names(body: list[str], attributes: set[str]) -> list[str]:
    start = len(body) - 1 - body[::-1].index("{}") if "{}" in body else 1
    rest = body[start:]
    parts, cur, depth = [], [], 0
    for t in rest:
        if t in "([":
            depth += 1
        elif t in ")]":
            depth -= 1
        if t == "," and depth == 0:
            parts.append(cur)
            cur = []
        else:
            cur.append(t)
    parts.append(cur)
    names = []
    for p in parts:
        # function pointer / function type: "( [CALLCONV] * NAME )"
        m = None
        for k in range(len(p) - 1):
            if p[k] == "*" and _IDENT.match(p[k + 1]) and p[k + 2 : k + 3] == [")"]:
                m = p[k + 1]
                break
        if m:
            names.append(m)
            continue
        depth, idents = 0, []
        for k, t in enumerate(p):
            if t in "([":
                depth += 1
            elif t in ")]":
                depth -= 1
            elif (
                depth == 0
                and _IDENT.match(t)
                and t not in _KEYWORDS
                and t not in _NOT_FUNCTION
                and (p[k + 1 : k + 2] != ["("] or not idents)
            ):
                idents.append(t)
        # drop trailing attribute macros: "... *cudnnFoo_t CUDNN_DEPRECATED;"
        while len(idents) > 1 and idents[-1] in attributes:
            idents.pop()
        if idents:
            names.append(idents[-1])
    return names


def scan_headers(
    root: Path, patterns: list[str], include_dirs: tuple[str, ...] = ()
) -> dict[str, Decl]:
    """Declarations of the headers matching the glob ``patterns`` under ``root``;
    ``include_dirs`` (relative to ``root``) are searched for the headers they include."""
    scanner = HeaderScanner()
    files: list[Path] = []
    seen: set[Path] = set()
    for pattern in patterns:
        for p in sorted(root.glob(pattern)):
            if p.is_file() and p not in seen:
                seen.add(p)
                files.append(p)

    # gather namespace macros first, also from the headers these include (same library only)
    def library(rel: Path) -> str:
        parts = rel.parts
        if len(parts) == 1:
            return parts[0].split(".")[0]
        return "/".join(parts[:2]) if parts[0] == "cccl" else parts[0]

    rroot = root.resolve()
    libs = {library(p.resolve().relative_to(rroot)) for p in files}
    todo, done = [p.resolve() for p in files], set()
    while todo:
        p = todo.pop()
        if p in done:
            continue
        done.add(p)
        text = p.read_text(encoding="utf-8", errors="replace")
        scanner._code_lines(text, "")
        for inc in _INCLUDE.findall(text):
            for base in (p.parent, root, *(root / d for d in include_dirs)):
                q = (base / inc).resolve()
                if q.is_file() and q.is_relative_to(rroot):
                    if library(q.relative_to(rroot)) in libs:
                        todo.append(q)
                    break
    scanner.decls.clear()
    scanner.aliases.clear()
    scanner.decl_macros = {
        k: v for k, v in scanner.decl_macros.items() if k not in scanner.empty_macros
    }
    for p in files:
        scanner.scan_file(p, p.relative_to(root).as_posix())
    decls = scanner.decls
    # "#define cuMemAlloc cuMemAlloc_v2" + a declaration of cuMemAlloc: the real symbol is _v2
    for name, target in scanner.aliases.items():
        if target not in decls and name in decls and decls[name].kind != "macro":
            d = decls[name]
            decls[target] = Decl(
                d.kind, d.header, d.params, d.deprecated, defaults=d.defaults, overloads=d.overloads
            )
    return decls
