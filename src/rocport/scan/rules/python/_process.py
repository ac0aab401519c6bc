"""Recognise the programs that a subprocess/os call runs.

A call's command is read from an argument list, a command string (split like a shell does, at
``;``, ``&&``, ``||``, ``|`` and ``&``), an f-string (its literal parts), ``shlex.split(...)``,
``" ".join([...])``, ``+`` of strings, or a name assigned one of those in the same file. Each
command is looked at past wrappers (``sudo``, ``env VAR=1``, ``timeout 10``, ``watch -n 1``)
and into ``sh -c '...'``. What is computed at run time (other variables, calls) is not seen.
Calls under an ``if`` that tests the platform (``torch.version.hip``, ``torch.version.cuda``,
a ROCm or HIP flag) are taken as handled: :func:`platform_guarded`.
"""

from __future__ import annotations

import ast
import os
import re
import shlex

from rocport.scan.context import PythonSource

#: Calls whose first argument is a command line or an argument list.
PROCESS_CALLS = frozenset(
    {
        "subprocess.run",
        "subprocess.call",
        "subprocess.check_call",
        "subprocess.check_output",
        "subprocess.Popen",
        "subprocess.getoutput",
        "subprocess.getstatusoutput",
        "os.system",
        "os.popen",
        "os.execvp",
        "os.execv",
        "os.spawnvp",
        "os.spawnlp",
        "os.execlp",
        "asyncio.create_subprocess_exec",
        "asyncio.create_subprocess_shell",
        "distutils.spawn.spawn",
        "setuptools.distutils.spawn.spawn",
        "spawn",
    }
)

#: Programs that run the command after their own options.
_WRAPPERS = frozenset(
    {"sudo", "env", "exec", "nohup", "time", "timeout", "watch", "nice", "stdbuf", "command"}
)
_SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh"})
#: ``-c`` alone or among a shell's one-letter options (``-lc``, ``-ec``)
_SHELL_C = re.compile(r"-[a-z]*c[a-z]*")
_SEPARATORS = frozenset({";", "&&", "||", "|", "&", "(", ")", "|&", ";;"})
#: Stands for a part of a command computed at run time.
UNKNOWN = "\0"


def commands(src: PythonSource, call: ast.Call) -> list[list[str]]:
    """The commands (program base name, then its words) that ``call`` runs, when it is a
    process call; ``[]`` otherwise or when the command is not written in the file."""
    name = src.qualname(call.func)
    if name is None or not call.args:
        return []
    if name not in PROCESS_CALLS and not (
        isinstance(call.func, ast.Attribute) and call.func.attr == "spawn"
    ):
        return []
    # os.spawn*(mode, file, ...) takes the program second
    first = call.args[1] if name.startswith("os.spawn") and len(call.args) > 1 else call.args[0]
    words = _words(src, first, call.lineno, depth=0)
    if words is None:
        return []
    found: list[list[str]] = []
    for command in words:
        _unwrap(command, found, depth=0)
    return found


def runs(src: PythonSource, call: ast.Call, program: str) -> bool:
    """Whether one of the commands of ``call`` is ``program``."""
    return any(command[0] == program for command in commands(src, call))


_PLATFORM_TEST = re.compile(r"version\.(?:hip|cuda)\b|\b(?:is_)?(?:hip|rocm)\b", re.IGNORECASE)


def candidate_calls(src: PythonSource) -> list[ast.Call]:
    """The process calls and program look-ups of ``src`` that are not platform-guarded."""
    found = []
    for call in src.of_type(ast.Call):
        name = src.qualname(call.func) or ""
        last = name.rsplit(".", 1)[-1]
        if (
            name in PROCESS_CALLS
            or last in ("spawn", "which", "find_executable")
            or (isinstance(call.func, ast.Attribute) and call.func.attr == "spawn")
        ) and not platform_guarded(src, call):
            found.append(call)
    return found


def platform_guarded(src: PythonSource, node: ast.AST) -> bool:
    """Whether ``node`` sits under an ``if`` (or conditional expression) that tests for ROCm
    or CUDA, or after such an ``if`` that returns: the author chose per platform there."""
    child = node
    for up in src.ancestors(node):
        if isinstance(up, ast.If | ast.IfExp | ast.While) and _platform_test(src, up.test):
            return True
        for name in ("body", "orelse", "finalbody"):
            block = getattr(up, name, None)
            if isinstance(block, list) and child in block:
                earlier = block[: block.index(child)]
                if any(
                    isinstance(stmt, ast.If)
                    and _platform_test(src, stmt.test)
                    and isinstance(stmt.body[-1], ast.Return | ast.Raise)
                    for stmt in earlier
                ):
                    return True
        child = up
    return False


def _platform_test(src: PythonSource, test: ast.AST) -> bool:
    return bool(_PLATFORM_TEST.search(src.source_of(test)))


def which_target(src: PythonSource, call: ast.Call) -> str | None:
    """The program looked up by ``shutil.which(...)`` / ``find_executable(...)``."""
    name = src.qualname(call.func) or ""
    if name.rsplit(".", 1)[-1] not in ("which", "find_executable") or not call.args:
        return None
    first = call.args[0]
    return first.value if isinstance(first, ast.Constant) and isinstance(first.value, str) else None


def _words(src: PythonSource, node: ast.AST, before: int, depth: int) -> list[list[str]] | None:
    """The commands of one argument: a list gives one command, a string may give several."""
    if depth > 4:
        return None
    if isinstance(node, ast.List | ast.Tuple):
        return [[_part(src, elt, before, depth) for elt in node.elts]]
    text = _literal(src, node, before, depth)
    if text is not None:
        return split_shell(text)
    if isinstance(node, ast.Name):
        value = _assigned(src, node.id, before)
        return None if value is None else _words(src, value, before, depth + 1)
    if isinstance(node, ast.Call) and src.qualname(node.func) == "shlex.split" and node.args:
        return _words(src, node.args[0], before, depth + 1)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):  # a list + more words
        head = _words(src, node.left, before, depth + 1)
        if head and len(head) == 1:
            tail = node.right.elts if isinstance(node.right, ast.List | ast.Tuple) else []
            return [head[0] + [_part(src, elt, before, depth) for elt in tail]]
    return None


def _part(src: PythonSource, node: ast.AST, before: int, depth: int) -> str:
    text = _literal(src, node, before, depth)
    return UNKNOWN if text is None else text


def _literal(src: PythonSource, node: ast.AST, before: int, depth: int) -> str | None:
    """The string an expression is, with ``UNKNOWN`` for parts computed at run time; None
    when it is not a string expression this module can read."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(
            v.value if isinstance(v, ast.Constant) and isinstance(v.value, str) else UNKNOWN
            for v in node.values
        )
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left = _literal(src, node.left, before, depth)
        right = _literal(src, node.right, before, depth)
        if left is None and right is None:
            return None
        return (UNKNOWN if left is None else left) + (UNKNOWN if right is None else right)
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "join"
        and isinstance(node.func.value, ast.Constant)
        and isinstance(node.func.value.value, str)
        and len(node.args) == 1
        and isinstance(node.args[0], ast.List | ast.Tuple)
    ):
        parts = [_part(src, elt, before, depth) for elt in node.args[0].elts]
        return node.func.value.value.join(parts)
    if isinstance(node, ast.Name) and depth < 4:
        value = _assigned(src, node.id, before)
        if value is not None and not isinstance(value, ast.List | ast.Tuple):
            return _literal(src, value, before, depth + 1)
    return None


def _assigned(src: PythonSource, name: str, before: int) -> ast.AST | None:
    """The value last assigned to ``name`` (one plain target) on a line before ``before``."""
    best: ast.Assign | None = None
    for node in src.of_type(ast.Assign):
        if (
            node.lineno < before
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and node.targets[0].id == name
            and (best is None or node.lineno > best.lineno)
        ):
            best = node
    return None if best is None else best.value


def split_shell(text: str) -> list[list[str]]:
    """The simple commands of a shell command line (words of each, quotes removed)."""
    lexer = shlex.shlex(text, posix=True, punctuation_chars=";&|()")
    lexer.whitespace_split = True
    try:
        tokens = list(lexer)
    except ValueError:  # an unbalanced quote: split at blanks
        tokens = text.split()
    result: list[list[str]] = [[]]
    for token in tokens:
        if token in _SEPARATORS:
            result.append([])
        else:
            result[-1].append(token)
    return [words for words in result if words]


def _unwrap(words: list[str], found: list[list[str]], depth: int) -> None:
    """Add the command ``words`` runs to ``found``, past wrappers and into ``sh -c``."""
    i = 0
    while i < len(words) and "=" in words[i] and not words[i].startswith("-"):
        i += 1  # VAR=value before the program
    while i < len(words):
        program = os.path.basename(words[i])
        if program in _WRAPPERS:
            i += 1
            while i < len(words) and (
                words[i].startswith("-") or "=" in words[i] or words[i][:1].isdigit()
            ):
                i += 1  # the wrapper's options, VAR=value, durations and counts
            continue
        flags = [j for j in range(i + 1, len(words)) if _SHELL_C.fullmatch(words[j])]
        if program in _SHELLS and depth < 3 and flags:
            if flags[0] + 1 < len(words):
                for command in split_shell(words[flags[0] + 1]):
                    _unwrap(command, found, depth + 1)
            return
        if UNKNOWN not in program and program:
            found.append([program, *words[i + 1 :]])
        return
