"""Evaluate ``#if``/``#elif`` conditions where some macros are unknown.

A value is known (an integer with C's ``intmax_t``/``uintmax_t`` semantics), ``UNKNOWN``
(it depends on a macro whose definition the scan cannot know), or a :class:`Span`: a value
known only to lie in a range (``HIP_VERSION`` of a release line whose patch number is not
known), which a comparison can still decide. Unknown values absorb arithmetic, but not
short-circuits: ``0 && X``, ``X && 0``, ``1 || X`` and ``X || 1`` are known whatever ``X`` is.

Macro lookup is the caller's: ``lookup(name)`` returns a :class:`Macro`, ``UNDEFINED`` (known
not to be defined: it reads as 0, as in the preprocessor) or ``UNKNOWN``. Object-like and
function-like macros are expanded (``#`` and ``##`` in a body make the value unknown);
``defined X``, ``defined(X)``, ``true``/``false`` (C++) and the ``__has_*`` operators (always
unknown) are understood. Anything else that is not a constant expression is unknown, never an
error.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

__all__ = ["UNDEFINED", "UNKNOWN", "Macro", "Span", "evaluate", "truth"]


class _Marker:
    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        self._name = name

    def __repr__(self) -> str:
        return self._name

    def __reduce__(self) -> str:
        return self._name  # pickled as the module-level singleton


UNKNOWN = _Marker("UNKNOWN")
UNDEFINED = _Marker("UNDEFINED")


@dataclass(frozen=True, slots=True)
class Macro:
    """A ``#define``: its body, and its parameters when it is function-like."""

    body: str
    params: tuple[str, ...] | None = None
    #: a value known only as a range (the body is then not read)
    span: Span | None = None


@dataclass(frozen=True, slots=True)
class Span:
    """A signed value known to lie in ``[low, high]``."""

    low: int
    high: int


_BITS = 64
_MASK = (1 << _BITS) - 1
_TOKEN = re.compile(
    r"[ \t\r\n\f\v]*(?:(?P<num>\.?\d(?:[eEpP][+-]|[\w.'])*)|(?P<name>[A-Za-z_]\w*)"
    r"|(?P<char>'(?:[^'\\\n]|\\.){1,4}')"
    r"|(?P<op>\|\||&&|==|!=|<=|>=|<<|>>|##|[-+*/%<>&|^!~?:(),#])"
    r'|(?P<other>"[^"\n]*"|[^ \t\r\n\f\v]))'
)
_INTEGER = re.compile(
    r"(?:0[xX](?P<hex>[0-9a-fA-F']+)|0[bB](?P<bin>[01']+)|(?P<dec>[0-9][0-9']*))"
    r"(?P<suffix>[uU](?:ll|LL|[lL])?|(?:ll|LL|[lL])[uU]?)?"
)
_HAS = frozenset(
    {
        "__has_include",
        "__has_include_next",
        "__has_builtin",
        "__has_feature",
        "__has_extension",
        "__has_attribute",
        "__has_cpp_attribute",
        "__has_c_attribute",
        "__has_declspec_attribute",
        "__has_warning",
        "__has_embed",
        "__is_identifier",
    }
)
_ESCAPES = {"n": 10, "t": 9, "r": 13, "0": 0, "\\": 92, "'": 39, '"': 34, "a": 7, "b": 8}
_ESCAPES |= {"f": 12, "v": 11, "?": 63}
#: a value: (number, unsigned), UNKNOWN or a Span
Value = tuple[int, bool] | _Marker | Span
Lookup = Callable[[str], "Macro | _Marker"]


@lru_cache(maxsize=8192)
def _tokens(text: str) -> tuple[tuple[str, str], ...] | None:
    """``(kind, text)`` pairs: kind ``num``, ``name``, ``char``, ``op`` or ``other`` (a string
    literal or a stray character, which only the operand of a ``__has_*`` may hold)."""
    out: list[tuple[str, str]] = []
    pos, end = 0, len(text)
    match = _TOKEN.match
    while pos < end:
        hit = match(text, pos)
        if hit is None or hit.end() == pos:
            if text[pos:].strip():
                return None
            break
        pos = hit.end()
        kind = hit.lastgroup
        out.append((kind, hit.group(kind)))
    return tuple(out)


def _number(kind: str, text: str) -> Value:
    if kind == "char":
        body = text[1:-1]
        if body.startswith("\\"):
            if len(body) == 2 and body[1] in _ESCAPES:
                return (_ESCAPES[body[1]], False)
            return UNKNOWN
        return (ord(body), False) if len(body) == 1 and body.isascii() else UNKNOWN
    hit = _INTEGER.fullmatch(text)
    if hit is None:
        return UNKNOWN  # a floating-point literal or a user-defined suffix: not an integer
    suffix = hit.group("suffix") or ""
    if hit.group("hex") is not None:
        value = int(hit.group("hex").replace("'", ""), 16)
    elif hit.group("bin") is not None:
        value = int(hit.group("bin").replace("'", ""), 2)
    else:
        digits = hit.group("dec").replace("'", "")
        if len(digits) > 1 and digits[0] == "0":
            if set(digits) & {"8", "9"}:
                return UNKNOWN
            value = int(digits, 8)
        else:
            value = int(digits)
    if value > _MASK:
        return UNKNOWN
    # past intmax_t a constant is unsigned (gcc: "integer constant is so large that it is
    # unsigned")
    return (value, "u" in suffix.lower() or value >> (_BITS - 1) != 0)


class _Expander:
    """Turns a condition's tokens into value and operator tokens, expanding macros."""

    def __init__(self, lookup: Lookup) -> None:
        self.lookup = lookup
        self.depth = 0

    def expand(self, tokens: list[tuple[str, str]], hidden: frozenset[str]) -> list | None:
        out: list = []
        i, n = 0, len(tokens)
        self.depth += 1
        if self.depth > 64:
            return None
        while i < n:
            kind, text = tokens[i]
            i += 1
            if kind == "other":
                return None
            if kind == "op":
                if text in ("#", "##"):
                    return None
                out.append(text)
            elif kind != "name":
                out.append(_number(kind, text))
            elif text == "defined":
                if i < n and tokens[i] == ("op", "("):
                    if i + 2 >= n or tokens[i + 1][0] != "name" or tokens[i + 2] != ("op", ")"):
                        return None
                    name, i = tokens[i + 1][1], i + 3
                elif i < n and tokens[i][0] == "name":
                    name, i = tokens[i][1], i + 1
                else:
                    return None
                state = self.lookup(name)
                out.append(UNKNOWN if state is UNKNOWN else (int(state is not UNDEFINED), False))
            elif text in _HAS:
                if i >= n or tokens[i] != ("op", "("):
                    return None
                close = _closing(tokens, i)
                if close is None:
                    return None
                out.append(UNKNOWN)
                i = close + 1
            elif text in ("true", "false") and text not in hidden:
                out.append((int(text == "true"), False))
            elif text in hidden:
                out.append((0, False))  # not expanded again: an identifier, which reads as 0
            else:
                state = self.lookup(text)
                if state is UNKNOWN:
                    out.append(UNKNOWN)
                elif state is UNDEFINED:
                    out.append((0, False))
                elif state.span is not None:
                    out.append(state.span)
                elif state.params is None:
                    body = _tokens(state.body)
                    if body is None:
                        return None
                    part = self.expand(list(body), hidden | {text})
                    if part is None:
                        return None
                    out.extend(part)
                elif i < n and tokens[i] == ("op", "("):
                    close = _closing(tokens, i)
                    if close is None:
                        return None
                    part = self._call(state, text, tokens[i + 1 : close], hidden)
                    if part is None:
                        return None
                    out.extend(part)
                    i = close + 1
                else:
                    out.append((0, False))  # a function-like name without arguments
        self.depth -= 1
        return out

    def _call(
        self, macro: Macro, name: str, args: list[tuple[str, str]], hidden: frozenset[str]
    ) -> list | None:
        """A function-like macro's expansion: arguments (expanded first) put in for the
        parameters, then the result expanded again with the macro's name hidden."""
        params = macro.params or ()
        parts: list[list[tuple[str, str]]] = [[]]
        depth = 0
        for token in args:
            if token == ("op", ",") and depth == 0:
                parts.append([])
                continue
            depth += token == ("op", "(")
            depth -= token == ("op", ")")
            parts[-1].append(token)
        if parts == [[]] and not params:
            parts = []
        if len(parts) != len(params) or (params and params[-1] == "..."):
            return None  # variadic macros, or a wrong count: not worth a guess
        body = _tokens(macro.body)
        if body is None:
            return None
        given = dict(zip(params, parts, strict=True))
        result: list[tuple[str, str]] = []
        for token in body:
            if token[0] == "name" and token[1] in given:
                result.extend(given[token[1]])
            else:
                result.append(token)
        return self.expand(result, hidden | {name})


def _closing(tokens: list[tuple[str, str]], open_index: int) -> int | None:
    depth = 0
    for index in range(open_index, len(tokens)):
        if tokens[index] == ("op", "("):
            depth += 1
        elif tokens[index] == ("op", ")"):
            depth -= 1
            if depth == 0:
                return index
    return None


def evaluate(condition: str, lookup: Lookup) -> Value:
    """The value of ``condition`` (the text after ``#if``); UNKNOWN when it depends on an
    unknown macro or is not a constant expression this evaluator understands."""
    tokens = _tokens(condition)
    if not tokens:
        return UNKNOWN
    items = _Expander(lookup).expand(list(tokens), frozenset())
    if not items:
        return UNKNOWN
    parser = _Parser(items)
    value = parser.conditional()
    return value if parser.pos == len(items) and not parser.broken else UNKNOWN


def truth(value: Value) -> bool | None:
    """Whether a value selects the branch: True, False or None (unknown)."""
    if isinstance(value, tuple):
        return value[0] != 0
    if isinstance(value, Span):
        return True if value.low > 0 or value.high < 0 else None
    return None


def _signed(value: int) -> int:
    value &= _MASK
    return value - (1 << _BITS) if value >> (_BITS - 1) else value


_COMPARE = {
    "<": lambda a, b: a < b,
    ">": lambda a, b: a > b,
    "<=": lambda a, b: a <= b,
    ">=": lambda a, b: a >= b,
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
}
#: binary operators by precedence, lowest first (?: and the logical ones are handled apart)
_LEVELS = (("|",), ("^",), ("&",), ("==", "!="), ("<", ">", "<=", ">="), ("<<", ">>"))
_LEVELS += (("+", "-"), ("*", "/", "%"))


class _Parser:
    """Recursive descent over expanded items, computing values as it goes."""

    def __init__(self, items: list) -> None:
        self.items = items
        self.pos = 0
        self.broken = False

    def peek(self):
        return self.items[self.pos] if self.pos < len(self.items) else None

    def take(self, op: str) -> bool:
        if self.peek() == op:
            self.pos += 1
            return True
        return False

    def conditional(self) -> Value:
        test = self.logical_or()
        if not self.take("?"):
            return test
        yes = self.conditional()
        if not self.take(":"):
            self.broken = True
            return UNKNOWN
        no = self.conditional()
        chosen = truth(test)
        if isinstance(yes, tuple) and isinstance(no, tuple):
            unsigned = yes[1] or no[1]
            yes, no = _convert(yes, unsigned), _convert(no, unsigned)
            if chosen is None:
                return yes if yes == no else UNKNOWN
            return yes if chosen else no
        if chosen is None:
            return UNKNOWN
        picked, other = (yes, no) if chosen else (no, yes)
        # the result has the type both arms convert to, the arm not taken included: a signed
        # pick is unsigned beside an unsigned arm, and of unknown type beside an unknown one
        if isinstance(picked, tuple) and picked[1]:
            return picked
        other_signed = isinstance(other, Span) or (isinstance(other, tuple) and not other[1])
        return picked if isinstance(picked, (tuple, Span)) and other_signed else UNKNOWN

    def logical_or(self) -> Value:
        left = self.logical_and()
        while self.take("||"):
            right = self.logical_and()
            a, b = truth(left), truth(right)
            left = (1, False) if a or b else (0, False) if a is False and b is False else UNKNOWN
        return left

    def logical_and(self) -> Value:
        left = self.binary(0)
        while self.take("&&"):
            right = self.binary(0)
            a, b = truth(left), truth(right)
            left = (0, False) if a is False or b is False else (1, False) if a and b else UNKNOWN
        return left

    def binary(self, level: int) -> Value:
        if level == len(_LEVELS):
            return self.unary()
        ops = _LEVELS[level]
        left = self.binary(level + 1)
        while True:
            op = self.peek()
            if not isinstance(op, str) or op not in ops:
                return left
            self.pos += 1
            left = _apply(op, left, self.binary(level + 1))

    def unary(self) -> Value:
        item = self.peek()
        if item is None:
            self.broken = True
            return UNKNOWN
        self.pos += 1
        if item == "(":
            value = self.conditional()
            if not self.take(")"):
                self.broken = True
            return value
        if item in ("-", "+", "~", "!"):
            value = self.unary()
            if not isinstance(value, tuple):
                if item == "!" and truth(value) is not None:
                    return (int(not truth(value)), False)
                return UNKNOWN
            number, unsigned = value
            if item == "!":
                return (int(number == 0), False)
            result = -number if item == "-" else ~number if item == "~" else number
            return (result & _MASK, True) if unsigned else (_signed(result), False)
        if isinstance(item, str):
            self.broken = True
            return UNKNOWN
        return item


def _convert(value: tuple[int, bool], unsigned: bool) -> tuple[int, bool]:
    return (value[0] & _MASK, True) if unsigned else value


def _apply(op: str, left: Value, right: Value) -> Value:
    if isinstance(left, Span) or isinstance(right, Span):
        return _compare_span(op, left, right)
    if not isinstance(left, tuple) or not isinstance(right, tuple):
        return UNKNOWN
    if op in ("<<", ">>"):
        return _shift(op, left, right)
    unsigned = left[1] or right[1]
    a, b = _convert(left, unsigned)[0], _convert(right, unsigned)[0]
    if op in _COMPARE:
        return (int(_COMPARE[op](a, b)), False)
    if op in ("/", "%"):
        if b == 0:
            return UNKNOWN  # the compiler rejects it
        quotient = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)
        result = quotient if op == "/" else a - quotient * b
    elif op == "+":
        result = a + b
    elif op == "-":
        result = a - b
    elif op == "*":
        result = a * b
    elif op == "&":
        result = a & b
    elif op == "|":
        result = a | b
    else:
        result = a ^ b
    return (result & _MASK, True) if unsigned else (_signed(result), False)


def _shift(op: str, left: tuple[int, bool], right: tuple[int, bool]) -> Value:
    """Shifts as gcc's preprocessor does them: the count is signed, a negative count shifts
    the other way, the result has the left operand's type; a count outside 0..63 is unknown."""
    count = right[0] if not right[1] else right[0] & _MASK
    if right[1] and count >= 1 << (_BITS - 1):
        return UNKNOWN
    if count < 0:
        op, count = (">>" if op == "<<" else "<<"), -count
    if count >= _BITS:
        return UNKNOWN
    value, unsigned = left
    if op == "<<":
        result = value << count
    else:
        result = (value & _MASK) >> count if unsigned else value >> count
    return (result & _MASK, True) if unsigned else (_signed(result), False)


def _compare_span(op: str, left: Value, right: Value) -> Value:
    """A comparison of a :class:`Span` with a known signed value; anything else is unknown."""
    if op not in _COMPARE:
        return UNKNOWN
    if isinstance(left, Span) and isinstance(right, tuple) and not right[1]:
        low, high, other, flipped = left.low, left.high, right[0], False
    elif isinstance(right, Span) and isinstance(left, tuple) and not left[1]:
        low, high, other, flipped = right.low, right.high, left[0], True
    else:
        return UNKNOWN

    def holds(value: int) -> bool:
        return _COMPARE[op](other, value) if flipped else _COMPARE[op](value, other)

    at_low, at_high = holds(low), holds(high)
    if op in ("==", "!="):
        inside = low <= other <= high
        if low == high or not inside:
            return (int(at_low), False)
        return UNKNOWN
    return (int(at_low), False) if at_low == at_high else UNKNOWN
