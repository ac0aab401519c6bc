"""Recognise the program that a subprocess/os call runs."""

from __future__ import annotations

import ast
import os
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


def program(src: PythonSource, call: ast.Call) -> str | None:
    """The base name of the program started by ``call``, when it is a process call."""
    name = src.qualname(call.func)
    if name is None or not call.args:
        return None
    if name not in PROCESS_CALLS and not (
        isinstance(call.func, ast.Attribute) and call.func.attr == "spawn"
    ):
        return None
    # os.spawn*(mode, file, ...) takes the program second
    first = call.args[1] if name.startswith("os.spawn") and len(call.args) > 1 else call.args[0]
    return _first_word(first)


def which_target(src: PythonSource, call: ast.Call) -> str | None:
    """The program looked up by ``shutil.which(...)`` / ``find_executable(...)``."""
    name = src.qualname(call.func) or ""
    if name.rsplit(".", 1)[-1] not in ("which", "find_executable") or not call.args:
        return None
    first = call.args[0]
    return first.value if isinstance(first, ast.Constant) and isinstance(first.value, str) else None


def _first_word(node: ast.AST) -> str | None:
    if isinstance(node, ast.List | ast.Tuple) and node.elts:
        return _first_word(node.elts[0])
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            words = shlex.split(node.value)
        except ValueError:
            words = node.value.split()
        return os.path.basename(words[0]) if words else None
    if isinstance(node, ast.JoinedStr) and node.values:
        head = node.values[0]
        if isinstance(head, ast.Constant) and isinstance(head.value, str) and head.value.strip():
            return os.path.basename(head.value.split()[0])
    return None
