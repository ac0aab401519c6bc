"""Migrate ``setup.py`` files that build PyTorch CUDA extensions.

``torch.utils.cpp_extension.CUDAExtension`` keeps working on ROCm: there torch hipifies the sources
and compiles the ``.cu`` files with hipcc, passing ``extra_compile_args["nvcc"]`` to hipcc (the key
stays ``nvcc``; see ``BuildExtension.build_extensions`` and ``_get_rocm_arch_flags`` in
torch/utils/cpp_extension.py). torch itself only renames ``CUDA`` to ``HIP`` inside such flags
(``_hipify_compile_flags``); nvcc-only options such as ``-gencode`` or ``--expt-relaxed-constexpr``
reach hipcc unchanged. So the ``nvcc`` list (and ``libraries``) get a ROCm form, chosen at build
time with ``IS_HIP_EXTENSION`` so that the same file still builds for CUDA.
"""

from __future__ import annotations

import ast

from rocport.errors import InputError
from rocport.port.build import flags
from rocport.port.build._edits import Editor
from rocport.port.model import Outcome, PortOptions, Translation

FAMILY = "setuptools"
_SWITCH = "IS_HIP_EXTENSION"
_IMPORT = f"from torch.utils.cpp_extension import {_SWITCH}\n"
_ARCH_NOTE = (
    "on ROCm torch adds --offload-arch from PYTORCH_ROCM_ARCH or from the targets torch was "
    "built for (_get_rocm_arch_flags)"
)


class _Offsets:
    """ast (1-based line, UTF-8 byte column) -> character offset."""

    def __init__(self, text: str) -> None:
        self.lines = text.splitlines(keepends=True)
        self.starts = [0]
        for line in self.lines:
            self.starts.append(self.starts[-1] + len(line))

    def __call__(self, line: int, col: int) -> int:
        return self.starts[line - 1] + len(
            self.lines[line - 1].encode()[:col].decode(errors="replace")
        )

    def span(self, node: ast.AST) -> tuple[int, int]:
        return self(node.lineno, node.col_offset), self(node.end_lineno, node.end_col_offset)  # type: ignore[attr-defined]


def _quoted(value: str, quote: str) -> str:
    text = repr(value)
    if quote == '"' and '"' not in value and "'" not in value:
        text = f'"{value}"'
    return text


def _dict_entry(node: ast.expr, key: str) -> ast.expr | None:
    """The value under ``key`` of a ``{...}`` or ``dict(...)`` expression."""
    if isinstance(node, ast.Dict):
        for k, v in zip(node.keys, node.values, strict=True):
            if isinstance(k, ast.Constant) and k.value == key:
                return v
    elif isinstance(node, ast.Call) and _call_name(node) == "dict":
        for kw in node.keywords:
            if kw.arg == key:
                return kw.value
    return None


def _call_name(node: ast.Call) -> str | None:
    if isinstance(node.func, ast.Name):
        return node.func.id
    if isinstance(node.func, ast.Attribute):
        return node.func.attr
    return None


class _SetupMigration:
    def __init__(self, text: str, tree: ast.Module, options: PortOptions) -> None:
        self.text = text
        self.tree = tree
        self.options = options
        self.edit = Editor(text)
        self.at = _Offsets(text)
        self.assigned = self._module_assignments()
        self.switched = False

    def _module_assignments(self) -> dict[str, ast.expr]:
        """Module-level ``NAME = [...]`` and ``NAME = {...}`` assignments, by name."""
        found: dict[str, ast.expr] = {}
        for stmt in self.tree.body:
            if (
                isinstance(stmt, ast.Assign)
                and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], ast.Name)
                and isinstance(stmt.value, ast.List | ast.Dict | ast.Call)
            ):
                found[stmt.targets[0].id] = stmt.value
        return found

    def run(self) -> Translation:
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Call) and _call_name(node) == "CUDAExtension":
                self._extension(node)
        if self.switched and not self._binds_switch():
            self.edit.insert(self._import_offset(), _IMPORT)
        return self.edit.result()

    def _extension(self, call: ast.Call) -> None:
        start, _ = self.at.span(call)
        self.edit.refer(
            start,
            "CUDAExtension",
            Outcome.TRANSLATED,
            FAMILY,
            "CUDAExtension",
            "torch builds it with hipcc on ROCm and hipifies its sources",
        )
        for kw in call.keywords:
            if kw.arg == "extra_compile_args":
                nvcc = _dict_entry(self._resolve(kw.value), "nvcc")
                if nvcc is not None:
                    self._list(self._resolve(nvcc), self._nvcc_flags)
            elif kw.arg == "libraries":
                self._list(self._resolve(kw.value), self._libraries)

    def _resolve(self, node: ast.expr) -> ast.expr:
        if isinstance(node, ast.Name) and node.id in self.assigned:
            return self.assigned[node.id]
        return node

    def _list(self, node: ast.expr, translate) -> None:
        if isinstance(node, ast.IfExp):  # already chosen per backend
            return
        if not isinstance(node, ast.List | ast.Tuple):
            start, _ = self.at.span(node)
            self.edit.refer(
                start,
                ast.unparse(node),
                Outcome.UNKNOWN,
                FAMILY,
                None,
                "options computed at run time: check them for nvcc-only flags",
            )
            return
        elements = [
            e for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)
        ]
        words = [flags.Word(e.value, *self.at.span(e)) for e in elements]
        rewrites = translate(words)
        for rw in rewrites:
            self.edit.refer(
                words[rw.first].start,
                rw.name,
                rw.outcome,
                rw.family,
                rw.hip if rw.outcome is Outcome.TRANSLATED else None,
                rw.note,
            )
        changed = [
            rw
            for rw in rewrites
            if rw.outcome is Outcome.TRANSLATED
            and rw.tokens != tuple(w.text for w in words[rw.first : rw.last])
        ]
        if not changed:
            return
        quote = '"' if self.text[words[0].start] == '"' else "'"
        by_first = {rw.first: rw for rw in changed}
        covered = {i for rw in changed for i in range(rw.first, rw.last)}
        index = {id(e): i for i, e in enumerate(elements)}
        parts: list[str] = []
        for element in node.elts:
            i = index.get(id(element))
            if i in by_first:
                parts.extend(_quoted(t, quote) for t in by_first[i].tokens)
            elif i not in covered:
                start, end = self.at.span(element)
                parts.append(self.text[start:end])
        start, end = self.at.span(node)
        original = self.text[start:end]
        self.edit.replace(start, end, f"([{', '.join(parts)}] if {_SWITCH} else {original})")
        self.switched = True

    def _nvcc_flags(self, words: list[flags.Word]) -> list[flags.Rewrite]:
        context = flags.FlagContext(None, self.options.blas, strict=True, arch_note=_ARCH_NOTE)
        return flags.translate(words, context)

    def _libraries(self, words: list[flags.Word]) -> list[flags.Rewrite]:
        rewrites: list[flags.Rewrite] = []
        for i, word in enumerate(words):
            found = flags.library(word.text, self.options.blas)
            if found is None:
                continue
            outcome, hip, note = found
            tokens = (hip,) if hip and outcome is Outcome.TRANSLATED else ()
            if outcome is Outcome.UNSUPPORTED:
                tokens = (word.text,)
            rewrites.append(flags.Rewrite(i, i + 1, tokens, word.text, outcome, "link", note))
        return rewrites

    def _binds_switch(self) -> bool:
        for node in ast.walk(self.tree):
            if isinstance(node, ast.ImportFrom) and any(
                a.name in (_SWITCH, "*") for a in node.names
            ):
                return True
            if (
                isinstance(node, ast.Name)
                and node.id == _SWITCH
                and isinstance(node.ctx, ast.Store)
            ):
                return True
        return False

    def _import_offset(self) -> int:
        imports = [s for s in self.tree.body if isinstance(s, ast.Import | ast.ImportFrom)]
        torch_imports = [
            s
            for s in imports
            if any(
                (getattr(s, "module", None) or "").startswith("torch") or a.name.startswith("torch")
                for a in s.names
            )
        ]
        anchor = (torch_imports or imports or [None])[-1]
        if anchor is None:
            return 0
        line = anchor.end_lineno or anchor.lineno
        return self.at.starts[line] if line < len(self.at.starts) else len(self.text)


def migrate(text: str, options: PortOptions, *, path: str = "setup.py") -> Translation:
    """The ROCm-aware form of a ``setup.py``, with one reference per CUDA construct found."""
    try:
        tree = ast.parse(text, filename=path)
    except SyntaxError as exc:
        raise InputError(f"not valid Python at line {exc.lineno}: {exc.msg}") from None
    return _SetupMigration(text, tree, options).run()
