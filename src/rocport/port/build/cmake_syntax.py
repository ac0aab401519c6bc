"""A small CMake tokenizer: command invocations and their arguments, skipping comments.

Follows the grammar of cmake-language(7): line comments ``#``, bracket comments ``#[==[ ]==]``,
quoted arguments (with ``\\`` escapes), bracket arguments ``[==[ ]==]`` and unquoted arguments
(which may embed quoted parts, as legacy CMake allows). Parentheses nested inside an argument list
are skipped, not reported as arguments.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_BRACKET_OPEN = re.compile(r"\[(=*)\[")
_UNQUOTED_STOP = frozenset(' \t\r\n()#"')


@dataclass(frozen=True, slots=True)
class Arg:
    """One argument; ``value`` is the text without quotes or brackets (escapes kept as written)."""

    kind: str  # "unquoted" | "quoted" | "bracket"
    start: int  # offset of the argument as written (the opening quote for a quoted one)
    end: int
    value_start: int
    value_end: int
    value: str


@dataclass(slots=True)
class Command:
    name: str
    start: int  # offset of the command name
    close: int  # offset of the closing parenthesis
    args: list[Arg] = field(default_factory=list)

    @property
    def end(self) -> int:
        return self.close + 1

    @property
    def lname(self) -> str:
        return self.name.lower()

    def values(self) -> list[str]:
        return [a.value for a in self.args]


class CMakeSyntaxError(ValueError):
    def __init__(self, text: str, offset: int, message: str) -> None:
        line = text.count("\n", 0, offset) + 1
        column = offset - (text.rfind("\n", 0, offset) + 1) + 1
        super().__init__(f"line {line}, column {column}: {message}")


def _skip_bracket(text: str, pos: int) -> int | None:
    """End offset of a bracket construct opening at ``pos`` (``[==[``), or None if it is not one."""
    m = _BRACKET_OPEN.match(text, pos)
    if m is None:
        return None
    close = text.find("]" + m.group(1) + "]", m.end())
    if close == -1:
        raise CMakeSyntaxError(text, pos, "unterminated bracket")
    return close + len(m.group(1)) + 2


def _skip_comment(text: str, pos: int) -> int:
    """``text[pos] == '#'``: offset after the comment."""
    end = _skip_bracket(text, pos + 1)
    if end is not None:
        return end
    nl = text.find("\n", pos)
    return len(text) if nl == -1 else nl


def _skip_quoted(text: str, pos: int) -> int:
    """``text[pos] == '"'``: offset after the closing quote."""
    i = pos + 1
    while i < len(text):
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == '"':
            return i + 1
        i += 1
    raise CMakeSyntaxError(text, pos, "unterminated quoted argument")


def commands(text: str) -> Iterator[Command]:
    """Every command invocation in ``text``, in order."""
    pos, n = 0, len(text)
    while pos < n:
        c = text[pos]
        if c == "#":
            pos = _skip_comment(text, pos)
            continue
        m = _IDENT.match(text, pos)
        if m is None or (pos > 0 and (text[pos - 1].isalnum() or text[pos - 1] == "_")):
            pos += 1 if m is None else m.end() - pos
            continue
        after = m.end()
        while after < n and text[after] in " \t":
            after += 1
        if after >= n or text[after] != "(":
            pos = m.end()
            continue
        command = Command(m.group(), m.start(), -1)
        pos = _parse_args(text, after + 1, command)
        yield command


def _parse_args(text: str, pos: int, command: Command) -> int:
    depth = 0
    n = len(text)
    while pos < n:
        c = text[pos]
        if c in " \t\r\n":
            pos += 1
        elif c == "#":
            pos = _skip_comment(text, pos)
        elif c == "(":
            depth += 1
            pos += 1
        elif c == ")":
            if depth == 0:
                command.close = pos
                return pos + 1
            depth -= 1
            pos += 1
        elif c == '"':
            end = _skip_quoted(text, pos)
            command.args.append(Arg("quoted", pos, end, pos + 1, end - 1, text[pos + 1 : end - 1]))
            pos = end
        elif c == "[" and (end := _skip_bracket(text, pos)) is not None:
            m = _BRACKET_OPEN.match(text, pos)
            assert m is not None
            inner_start, inner_end = m.end(), end - len(m.group(1)) - 2
            command.args.append(
                Arg("bracket", pos, end, inner_start, inner_end, text[inner_start:inner_end])
            )
            pos = end
        else:
            start = pos
            while pos < n and text[pos] not in _UNQUOTED_STOP:
                if text[pos] == "\\":
                    pos += 1
                pos += 1
                if pos < n and text[pos] == '"':  # legacy: quotes inside an unquoted argument
                    pos = _skip_quoted(text, pos)
            command.args.append(Arg("unquoted", start, pos, start, pos, text[start:pos]))
    raise CMakeSyntaxError(text, command.start, f"unterminated call of {command.name}()")
