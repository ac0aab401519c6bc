"""The translator's scanner: the lexer's view of comments, literals and ``#include`` lines,
plus candidate CUDA identifiers and ``<<<``, in one regex that Python's ``re`` runs fast.

It follows :mod:`rocport.lexer` token for token where the translator looks (a property test
checks this), but it is shaped for speed: every top-level alternative starts with a literal
character, so ``re`` skips in C to the next position that can start a token (``/ " ' # <``
and the first letters of the candidate names) instead of trying every alternative at every
character. Numbers need no alternative of their own: a ``'`` directly after a word character
is a digit separator (``1'000``), never a character literal, unless the word is an encoding
prefix (``u8'a'``, ``L'a'``).

Token kinds (``match.lastgroup``): ``comment``, ``raw``, ``string``, ``char``, ``include``
(with ``ipath``: the path including its ``<>`` or ``""``), ``has_include`` (with ``hpath``,
likewise), ``launch`` (a ``<<<``), and None for an identifier. A match starts at the
token's first character, except ``raw``, which starts at its opening quote (after ``R`` and
any encoding prefix). ``include`` matches a ``#`` anywhere: callers check that only
whitespace precedes it on its line.
"""

from __future__ import annotations

import os
import re
from collections import defaultdict
from collections.abc import Iterator
from functools import cache

_NOT_AFTER_WORD = r"(?<![\w$].)"  # placed after a token's first character
_WORD = re.compile(r"\w+")

_LINE_COMMENT = r"//[^\n\\]*(?:\\(?:[ \t\f\v\r]*\n|.|\Z)[^\n\\]*)*"
#: a block comment, or a run of line comments on consecutive lines (one match: doc comments
#: come in runs, and each match costs a trip through Python)
_COMMENT = (
    rf"/(?P<comment>{_LINE_COMMENT[1:]}(?:\n[ \t]*{_LINE_COMMENT})*"
    r"|\*[^*]*(?:\*+[^*/][^*]*)*(?:\*+/|\*+\Z|\Z))"
)
#: (``\x1c-\x1f`` are whitespace to ``\s`` in a ``str`` pattern, but not under ``re.ASCII``:
#: listed, so that the scanner for ASCII text reads raw strings the same)
_RAW = (
    r'"(?:(?<=(?<![\w$])R")|(?<=(?<![\w$])[uUL]R")|(?<=(?<![\w$])u8R"))'
    r'(?P<raw>(?P<delim>[^()\\\s\x1c-\x1f"]{0,16})\((?s:.*?)(?:\)(?P=delim)"|\Z))'
)
_STRING = r'"(?P<string>[^"\\\n]*(?:\\(?:[ \t\f\v\r]*\n|.|\Z)[^"\\\n]*)*"?)'
_CHAR = (
    r"'(?:(?<![\w$]')|(?<=(?<![\w$])[uUL]')|(?<=(?<![\w$])u8'))"
    r"(?P<char>[^'\\\n]*(?:\\(?:[ \t\f\v\r]*\n|.|\Z)[^'\\\n]*)*'?)"
)
_INCLUDE = (
    r"\#(?P<include>[ \t]*(?:include_next|include|import)[ \t]*"
    r"(?P<ipath><[^>\n]*>|\"[^\"\n]*\"))"
)
#: ``__has_include(<header>)`` (or ``__has_include_next``, or a quoted name), in an ``#if``
#: (the word is matched before the lookbehind: at most '_' of code, the second character
#: already fails)
_HAS_INCLUDE = (
    r"__has_include(?<![\w$]__has_include)(?P<has_include>(?:_next)?[ \t]*\([ \t]*"
    r"(?P<hpath><[^>\n]*>|\"[^\"\n]*\")[ \t]*\))"
)
#: ``<<<``, also written ``<< <`` (nvcc accepts spaces between the brackets, clang does not)
_LAUNCH = r"<(?P<launch><[ \t]*<)"
#: the alternatives for comments and literals, for callers that skip them in code
LITERALS = (_COMMENT, _RAW, _STRING, _CHAR)


def split_alternatives(pattern: str) -> list[str]:
    """Split a regex into its top-level ``|`` alternatives (an outer ``(?:…)`` is unwrapped)."""
    while pattern.startswith("(?:") and _closing(pattern, 0) == len(pattern) - 1:
        pattern = pattern[3:-1]
    parts: list[str] = []
    start = 0
    for i, char, depth in _groups_and_bars(pattern):
        if char == "|" and depth == 0:
            parts.append(pattern[start:i])
            start = i + 1
    parts.append(pattern[start:])
    return parts


def _closing(pattern: str, open_: int) -> int:
    """Index of the ``)`` that closes the group opened at ``open_``, or -1."""
    for i, char, depth in _groups_and_bars(pattern, open_):
        if char == ")" and depth == 0:
            return i
    return -1


def _groups_and_bars(pattern: str, start: int = 0) -> Iterator[tuple[int, str, int]]:
    """Each ``(``, ``)`` and ``|`` of a regex from ``start`` that is neither escaped nor in a
    character class, as (index, character, group depth after it)."""
    depth = 0
    in_class = False
    i = start
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            i += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
            if pattern.startswith("]", i + 1) or pattern.startswith("^]", i + 1):
                i += 2 if pattern[i + 1] == "]" else 3
                continue
        elif char in "()|":
            depth += (char == "(") - (char == ")")
            yield i, char, depth
        i += 1


def _literal_head(alternative: str) -> str | None:
    """The literal first character of a regex alternative, or None when it is not literal."""
    if not alternative:
        return None
    head = alternative[0]
    if head.isalnum() or head in "_$":
        rest = alternative[1:2]
        if rest in ("*", "?", "{"):  # optional first character
            return None
        return head
    return None


#: a branch whose every match starts with one literal at least this long can be left out of
#: the scanner for a text that lacks the literal: ``str.find`` skips through text in steps of
#: about its length, while each branch costs a match attempt at every occurrence of its first
#: character (``t`` of ``thrust::cuda``: every ``t`` of the text)
NEEDLE_MIN = 7
#: a first character with more names than this is matched by the stem they share (see
#: :func:`identifier_branches`)
GENERIC_MIN = 100
#: characters that stand for themselves in a prefix regex (``thrust::cuda\\b``, ``make_cu[A-Z]``)
_LITERAL_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_:")


def _literal_prefix(pattern: str) -> str:
    """The literal characters that every match of ``pattern`` starts with (those before its
    first metacharacter; a character made optional by a quantifier is not one of them)."""
    end = 0
    while end < len(pattern) and pattern[end] in _LITERAL_CHARS:
        end += 1
    if end < len(pattern) and pattern[end] in "?*{":
        end -= 1
    return pattern[: max(end, 0)]


def branch_needles(prefixes: list[str], names: list[str]) -> dict[str, str]:
    """For each first character of :func:`identifier_branches`, the literal that every match
    of its branch starts with, where that literal is at least :data:`NEEDLE_MIN` long: a text
    without it holds no match of the branch."""
    starts: dict[str, list[str]] = defaultdict(list)
    for prefix in prefixes:
        head = _literal_head(prefix)
        starts[head or ""].append(_literal_prefix(prefix))
    for name in names:
        starts[name[0]].append(name)
    needles = {}
    for head, literals in starts.items():
        common = os.path.commonprefix(literals)
        if head and len(common) >= NEEDLE_MIN:
            needles[head] = common
    return needles


def without_needled(branches: tuple[str, ...], needles: dict[str, str]) -> tuple[str, ...]:
    """``branches`` less those whose first character has a needle (:func:`branch_needles`)."""
    return tuple(b for b in branches if b.removeprefix("\\")[0] not in needles)


def identifier_branches(prefixes: list[str], names: list[str]) -> list[str]:
    """Scanner alternatives for identifiers starting with a prefix regex or equal to a name.

    Prefix alternatives are extended by ``\\w*``; each branch starts with a literal character.
    A prefix that does not start with one is kept in a (slower) branch of its own. A first
    character with more than :data:`GENERIC_MIN` names, all of them words that start with one
    stem (``__`` of ``__float2half``, ``__shfl\\w*_sync``), gets ``stem\\w*`` instead of their
    trie: a branch that also matches the stem's other words (the caller's rules skip them),
    compiled several times faster.
    """
    by_head: dict[str, list[str]] = defaultdict(list)
    loose: list[str] = []
    stems: dict[str, list[str]] = defaultdict(list)  # head -> literal starts of its matches
    for prefix in prefixes:
        head = _literal_head(prefix)
        if head is None:
            loose.append(prefix)
        else:
            by_head[head].append(f"(?:{prefix[1:]})\\w*")
            stems[head].append(_literal_prefix(prefix) if ":" not in prefix else "")
    words: dict[str, list[str]] = defaultdict(list)
    for name in names:
        words[name[0]].append(name[1:])
        stems[name[0]].append(name if _WORD.fullmatch(name) else "")
    branches = []
    for head in sorted(set(by_head) | set(words)):
        stem = os.path.commonprefix(stems[head])
        if len(words.get(head, ())) > GENERIC_MIN and len(stem) >= 2 and all(stems[head]):
            branches.append(
                f"{re.escape(stem[0])}{_NOT_AFTER_WORD}{re.escape(stem[1:])}\\w*+(?!\\$)"
            )
            continue
        alternatives = list(by_head.get(head, ()))
        if head in words:
            alternatives.append(trie(sorted(set(words[head]))))
        body = "|".join(alternatives)
        branches.append(f"{re.escape(head)}{_NOT_AFTER_WORD}(?:{body})(?![\\w$])")
    if loose:
        branches.append(f"(?<![\\w$])(?:{'|'.join(loose)})\\w*(?![\\w$])")
    return branches


@cache
def compile_scanner(ident_branches: tuple[str, ...], *, ascii: bool = False) -> re.Pattern[str]:
    """The scanner, with ``ident_branches`` (from :func:`identifier_branches`) as identifiers.

    Identifier branches have no named group: an identifier is a match whose ``lastgroup`` is
    None. Keeping them at the top level keeps every alternative literal-first. With ``ascii``
    it is compiled with ``re.ASCII``, for text that is all ASCII (``str.isascii()``): the same
    tokens about a tenth faster (``\\w`` is then looked up in a table of 128 characters).
    """
    parts = [_COMMENT, _RAW, _STRING, _CHAR, _INCLUDE, _HAS_INCLUDE, _LAUNCH, *ident_branches]
    return re.compile("|".join(parts), re.MULTILINE | (re.ASCII if ascii else 0))


def trie(words: list[str]) -> str:
    """A regex matching exactly ``words``, factored by common prefixes (fast in ``re``)."""
    tree: dict = {}
    for word in words:
        node = tree
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}

    def emit(node: dict) -> str:
        branches = []
        optional = False
        for char in sorted(node):
            if char == "":
                optional = True
                continue
            branches.append(re.escape(char) + emit(node[char]))
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        return f"(?:{body})?" if optional else body

    return emit(tree)


#: words after which a name is used, not declared (``return cudaFoo(...)``)
_NOT_A_TYPE = frozenset(
    [
        "return",
        "case",
        "else",
        "goto",
        "throw",
        "delete",
        "new",
        "sizeof",
        "typedef",
        "co_return",
        "co_yield",
        "operator",
        "template",
        "typename",
        "if",
        "while",
        "for",
        "switch",
        "do",
        "not",
        "and",
        "or",
    ]
)
_AFTER_TAG = re.compile(r"\s*[{:;]")
_AFTER_NAME = re.compile(r"\s*[=;,\[)]")
_AFTER_USING = re.compile(r"\s*=")
_PARAMETERS_AND_BODY = re.compile(
    r"\s*\((?:[^()]|\([^()]*\))*\)\s*(?:const\s*|noexcept\s*|override\s*)*[{;:]"
)


_TAGS = frozenset({"struct", "class", "union", "enum", "namespace"})
_WORD_START = re.compile(r"[A-Za-z_]")


def word_before_name(text: str, start: int) -> tuple[str, bool] | None:
    """The word before the name at ``start`` and whether it is a tag keyword, as
    in the 120 characters before ``start``: a tag keyword, or a type word with one level of
    template arguments, then spaces, ``*`` or ``&``. Read backwards, so that no pattern is
    tried at every position of the window (a test compares it with the regex it replaces)."""
    low = max(0, start - 120)
    i = start
    while i > low and (text[i - 1].isspace() or text[i - 1] in "*&"):
        i -= 1
    if i == start:
        return None
    template = False
    if i > low and text[i - 1] == ">":
        opening = text.rfind("<", low, i - 1)
        if opening < 0 or any(c in text[opening + 1 : i - 1] for c in ">;{}()"):
            return None
        template, i = True, opening
        while i > low and text[i - 1].isspace():
            i -= 1
    end = i
    while i > low and (text[i - 1].isalnum() or text[i - 1] == "_"):
        i -= 1
    first = _WORD_START.search(text, i, end)
    if first is None:
        return None
    word = text[first.start() : end]
    is_tag = (
        not template
        and word in _TAGS
        and (
            first.start() == 0
            or not (text[first.start() - 1].isalnum() or text[first.start() - 1] == "_")
        )
    )
    return word, is_tag


def declared_at(text: str, start: int, end: int) -> bool:
    """Whether the name at ``text[start:end]`` is declared there: a variable, function, type,
    tag, alias or namespace (``cudaError_t cudaStat1 = ...``, ``cublasHandle_t cublasH;``,
    ``void cudaCheck(int e) {``, ``struct cudaThing {``, ``using cudaAlias = ...``), not used
    (``x = cudaFoo(1)``, ``return cudaBar;``, ``CHECK(cudaBaz(a))``)."""
    before = word_before_name(text, start)
    if before is None:
        return False
    word, is_tag = before
    if is_tag:
        return _AFTER_TAG.match(text, end) is not None
    if word == "using":
        return _AFTER_USING.match(text, end) is not None
    if word in _NOT_A_TYPE:
        return False
    return (
        _AFTER_NAME.match(text, end) is not None
        or _PARAMETERS_AND_BODY.match(text, end) is not None
    )


def declares_namespace(text: str, name: str) -> bool:
    """Whether ``text`` opens ``namespace name`` (a project's own ``namespace cuda {``)."""
    rest = re.compile(rf"\s+{re.escape(name)}\s*\{{")
    at = text.find("namespace")
    while at >= 0:
        if (at == 0 or not (text[at - 1].isalnum() or text[at - 1] == "_")) and rest.match(
            text, at + 9
        ):
            return True
        at = text.find("namespace", at + 9)
    return False


@cache
def _cuda_like_words(pattern: str) -> re.Pattern[str]:
    """Whole identifiers that start with one of the CUDA-looking prefixes of ``pattern``
    (literal-first alternatives, so ``re`` skips quickly to candidates; where every prefix
    starts with a literal, one alternative per first character, the prefixes in their order)."""
    alternatives = split_alternatives(pattern)
    heads = [_literal_head(alt) for alt in alternatives]
    if None not in heads:
        by_head: dict[str, list[str]] = defaultdict(list)
        for head, alt in zip(heads, alternatives, strict=True):
            by_head[head].append(alt[1:])
        branches = [
            f"{re.escape(head)}{_NOT_AFTER_WORD}(?:{'|'.join(rests)})"
            for head, rests in by_head.items()
        ]
        return re.compile("(?:" + "|".join(branches) + r")\w*")
    branches = []
    for alt, head in zip(alternatives, heads, strict=True):
        guard = f"{re.escape(head)}{_NOT_AFTER_WORD}(?:{alt[1:]})" if head else f"(?<![\\w$]){alt}"
        branches.append(guard)
    return re.compile("(?:" + "|".join(branches) + r")\w*")


def project_declarations(text: str, mapping) -> set[str]:
    """The CUDA-looking names that ``text`` declares and ``mapping`` does not know (a header's
    ``extern cublasHandle_t cublasH;``): the project's names in every file of its tree."""
    found: set[str] = set()
    known: set[str] = set()
    lookup = mapping.lookup
    for match in _cuda_like_words(mapping.cuda_like.pattern).finditer(text):
        word = match.group()
        if word in known or word in found:
            continue
        if lookup(word) is not None or not mapping.is_cuda_like(word):
            known.add(word)
        elif declared_at(text, match.start(), match.end()):
            found.add(word)
    return found


#: literal-first, so that ``re`` skips to each ``#``; the line start is checked after
_MACRO_PARAMETERS = re.compile(r"#[ \t]*define[ \t]+\w+\(([^)\n]*)\)")


def macro_parameters(text: str) -> set[str]:
    """The parameter names of the function-like macros ``text`` defines (``#define
    CUT_DEVICE_INIT_DRV(cuDevice)``: ``cuDevice`` in its body is the macro's, not CUDA's)."""
    names: set[str] = set()
    for match in _MACRO_PARAMETERS.finditer(text):
        before = match.start() - 1
        while before >= 0 and text[before] in " \t":  # only back over spaces: linear time
            before -= 1
        if before >= 0 and text[before] != "\n":
            continue  # not a directive: something else precedes the # on its line
        names.update(p.strip() for p in match.group(1).split(","))
    return names
