"""Migrate Makefiles from nvcc to hipcc: compiler, options, CUDA install paths, libraries."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from rocport.port.build import flags
from rocport.port.build._data import nvcc_flag_index, table
from rocport.port.build._edits import Editor
from rocport.port.model import Outcome, PortOptions, Translation

FAMILY = "make"
_ASSIGN = re.compile(
    r"[ \t]*(?:(?:export|override)[ \t]+)*([A-Za-z_][A-Za-z0-9_.-]*)[ \t]*(\?=|::=|:=|\+=|!=|=)"
)
#: make's message functions: what they print is for the user, not a command
_MESSAGE = re.compile(r"\$[({](?:info|warning|error)[ \t]")
_NVCC_WORD = re.compile(r"(?<![\w.-])nvcc(?![\w.-])")
#: nvcc named as a program to look for: /usr/bin/nvcc inside $(wildcard ...), which/where nvcc
_NVCC_PATH = re.compile(
    r"(?:(?<=/bin/)|(?<=\bwhich )|(?<=\bwhere )|(?<=command -v ))nvcc(?![\w.-])"
)
_VAR_REF = re.compile(r"\$[({]([A-Za-z_][A-Za-z0-9_.-]*)[)}]")
_NV_ARCH = re.compile(r"\b(?:sm|compute|lto)_\d")  # an NVIDIA architecture value
_CUDA_HINT = re.compile(r"nvcc|cuda|CUDA")
#: a host C/C++ compiler in command position (gcc, g++-12, /usr/bin/cc, clang++)
_HOST_COMPILER = re.compile(r"(?:\S*/)?(?:gcc|g\+\+|cc|c\+\+|clang|clang\+\+)(?:-\d+)?")
_COMMAND_PREFIX = re.compile(r"^(?:[@+-]|\$[({][A-Za-z_]\w*[)}](?=\$[({]))*")
#: nvcc options that make it stop before linking (compile, preprocess, dependencies, GPU code)
_NO_LINK = frozenset(
    {"-c", "--compile", "-E", "--preprocess", "-M", "-MM", "--generate-dependencies", "-S"}
    | {"-ptx", "--ptx", "-cubin", "--cubin", "-fatbin", "--fatbin", "-lib", "--lib"}
    | {"--genco", "--cuda-device-only", "-dc", "--device-c", "-dlink", "--device-link"}
)
#: make's own compiler variables (their default values are host compilers)
_HOST_COMPILER_VARS = frozenset({"CC", "CXX", "LINK", "LD", "HOSTCC", "HOST_CC", "HOSTCXX"})


@dataclass(frozen=True, slots=True)
class _Line:
    """A logical Makefile line (backslash continuations joined), without its comment."""

    start: int
    code_end: int
    recipe: bool


#: an object file named in a rule's prerequisites or a variable (``main.o``, ``./util/a.o``)
_OBJECT = re.compile(r"(?<![\w$(){}%./-])(?:\./)?[\w./-]*\w\.o(?![\w.])")
_CONDITIONAL = re.compile(r"[ \t]*(?:ifeq|ifneq|ifdef|ifndef|else|endif)\b")
_RULE = re.compile(r"[^=#]*?(?<![:?+!])::?(?![=])")  # targets: prerequisites (not an assignment)


def _logical_lines(text: str) -> Iterator[_Line]:
    """The logical lines; a tab-indented line is a recipe line only inside a rule (make reads
    ``\tNVCCFLAGS += ...`` in a conditional outside any rule as an assignment)."""
    pos, n = 0, len(text)
    in_rule = False
    while pos < n:
        end = pos
        while True:
            nl = text.find("\n", end)
            nl = n if nl == -1 else nl
            backslashes = len(text[end:nl]) - len(text[end:nl].rstrip("\\"))
            if backslashes % 2 == 1 and nl < n:
                end = nl + 1
                continue
            break
        recipe = text.startswith("\t", pos) and in_rule
        if not text.startswith("\t", pos):
            head = text[pos:nl]
            if head.strip() and not head.lstrip().startswith("#") and not _CONDITIONAL.match(head):
                in_rule = bool(_RULE.match(head)) and not _ASSIGN.match(head)
        yield _Line(pos, _comment_start(text, pos, nl, recipe), recipe)
        pos = nl + 1


def _comment_start(text: str, start: int, end: int, recipe: bool) -> int:
    """Offset of the line's comment (``end`` when none); quotes and ``\\#`` protect ``#``."""
    quote = None
    i = start
    while i < end:
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if quote:
            quote = None if c == quote else quote
        elif c in "'\"" and recipe:
            quote = c
        elif c == "#" and (not recipe or i == start or text[i - 1] in " \t"):
            return i
        i += 1
    return end


def _words(text: str, start: int, end: int) -> list[flags.Word]:
    """Whitespace-separated words; ``$(...)``, ``${...}`` and quotes stay inside one word."""
    words: list[flags.Word] = []
    i = start
    while i < end:
        if text[i] in " \t\r\n" or (text[i] == "\\" and text[i + 1 : i + 2] == "\n"):
            i += 1 if text[i] != "\\" else 2
            continue
        begin = i
        depth, quote = 0, None
        while i < end:
            c = text[i]
            if quote:
                quote = None if c == quote else quote
            elif c in "'\"":
                quote = c
            elif c == "$" and text[i + 1 : i + 2] in ("(", "{"):
                depth += 1
                i += 2
                continue
            elif c in ")}" and depth:
                depth -= 1
            elif depth == 0 and (c in " \t\r\n" or (c == "\\" and text[i + 1 : i + 2] == "\n")):
                break
            i += 1
        words.append(flags.Word(text[begin:i], begin, i))
    return words


def _rocm_roots(data: dict) -> tuple[str, ...]:
    """``$(ROCM_PATH)``, ``${ROCM_PATH}`` and the default ROCm install folder."""
    var = data["rocm_variable"]
    return (f"$({var})", f"${{{var}}}", data["rocm_path"])


class _MakeMigration:
    def __init__(self, text: str, options: PortOptions) -> None:
        self.data = table("make")
        self.text = text
        self.options = options
        self.edit = Editor(text)
        self.install_vars = set(self.data["install_variables"])
        self.install_path = re.compile(self.data["install_path_pattern"])
        self.flag_vars = re.compile(self.data["nvcc_flag_variables"])
        self.has_platform = self.data["platform_define"] in text
        roots = "|".join(re.escape(r) for r in _rocm_roots(self.data))
        dirs = "|".join(sorted(map(re.escape, self.data["library_dirs"]), key=len, reverse=True))
        self.library_dir = re.compile(rf"({roots})/({dirs})(?![A-Za-z0-9_])")
        # nvcc options written inside $(foreach ...), $(if ...) and the like (long spellings only)
        spellings = sorted((o for o in nvcc_flag_index() if len(o) >= 5), key=len, reverse=True)
        self.embedded_option = re.compile(
            rf"(?<![\w-])({'|'.join(map(re.escape, spellings))})(?=[\s=,)]|$)"
        )
        self.lines = list(_logical_lines(text))
        self.values = self._assignments()
        self.nvcc_vars = self._nvcc_variables()
        self.nvcc_fed = self._nvcc_fed_variables()
        self.is_cuda = bool(_CUDA_HINT.search(text))
        self.nvcc_seen = False  # an nvcc command or variable was rewritten
        self.uses_rocm_var = bool(
            self.install_vars & set(_VAR_REF.findall(text))
            or re.search(rf"\$[({{]{self.data['rocm_variable']}[)}}]", text)
        )

    def _is_nvcc(self, word: str) -> bool:
        word = word[_COMMAND_PREFIX.match(word).end() :]  # @$(NVCC), $(VERBOSE)$(NVCC)
        if word == "nvcc" or word.endswith("/nvcc"):
            return True
        m = _VAR_REF.fullmatch(word)
        return bool(m and (m.group(1) in self.nvcc_vars or m.group(1) == "NVCC"))

    def _assignments(self) -> dict[str, list[str]]:
        """Variable -> the values assigned to it in this file (as written)."""
        values: dict[str, list[str]] = {}
        for line in self.lines:
            m = None if line.recipe else _ASSIGN.match(self.text, line.start, line.code_end)
            if m:
                values.setdefault(m.group(1), []).append(self.text[m.end() : line.code_end])
        return values

    def _nvcc_variables(self) -> set[str]:
        found: set[str] = set()
        for name, values in self.values.items():
            for value in values:
                words = _words(value, 0, len(value))
                if words and (words[0].text == "nvcc" or words[0].text.endswith("/nvcc")):
                    found.add(name)
        return found

    def _nvcc_fed_variables(self) -> set[str]:
        """Variables referenced on an nvcc command line: their values are nvcc options."""
        fed: set[str] = set()
        for line in self.lines:
            words = _words(self.text, line.start, line.code_end)
            on_nvcc = False
            for word in words:
                if self._is_nvcc(word.text):
                    on_nvcc = True
                elif word.text in ("&&", "||", ";", "|"):
                    on_nvcc = False
                elif on_nvcc:
                    fed.update(_VAR_REF.findall(word.text))
        return fed - self.nvcc_vars

    def _is_host_compiler(self, word: str) -> bool:
        """``word`` starts a host-compiler command (``gcc``, ``$(CXX)``, ``@$(CC)``)."""
        body = word[_COMMAND_PREFIX.match(word).end() :]
        if _HOST_COMPILER.fullmatch(body):
            return True
        m = _VAR_REF.fullmatch(body)
        if not m or m.group(1) in self.nvcc_vars or m.group(1) == "NVCC":
            return False
        values = self.values.get(m.group(1))
        if values is None:
            return m.group(1) in _HOST_COMPILER_VARS
        first = [_words(v, 0, len(v))[:1] for v in values]
        return any(w and _HOST_COMPILER.fullmatch(w[0].text) for w in first)

    def _expanded(self, words: list[flags.Word]) -> Iterator[str]:
        """The words, and those of the values of the variables they reference (as written)."""
        seen: set[str] = set()
        todo = [w.text for w in words]
        while todo:
            text = todo.pop()
            yield text
            for name in _VAR_REF.findall(text):
                if name not in seen:
                    seen.add(name)
                    todo += [
                        w.text for v in self.values.get(name, ()) for w in _words(v, 0, len(v))
                    ]

    def _has_platform(self, words: list[flags.Word]) -> bool:
        """The command already gets the platform macro (directly or through a variable)."""
        define = self.data["platform_define"]
        return any(define in t or self._rocm_include(t) for t in self._expanded(words))

    def _link_needs(self, words: list[flags.Word]) -> None:
        """An nvcc command that links (no ``-c``, ``-E``, ... in it or its variables) gets the
        libraries that the ported sources call and CUDA linked nothing for
        (``options.link_needs``: ``-lroctx64`` for NVTX 3), unless it links them already."""
        if not self.options.link_needs or not words:
            return
        expanded = set(self._expanded(words))
        if expanded & _NO_LINK:
            return
        link = table("link_libraries")
        for lib in self.options.link_needs:
            flag = f"-l{lib}"
            cuda = {f"-l{n}" for n, row in link["libraries"].items() if row.get("hip") == lib}
            if flag in expanded or expanded & cuda:
                continue
            note = next((r["note"] for r in link["header_only"].values() if r["hip"] == lib), None)
            if self.edit.insert(words[-1].end, f" {flag}"):
                self.edit.refer(words[-1].end, flag, Outcome.TRANSLATED, "link", flag, note)

    def _rocm_include(self, word: str) -> bool:
        rocm_var = self.data["rocm_variable"]
        includes = (
            f"$({rocm_var})/include",
            f"${{{rocm_var}}}/include",
            f"{self.data['rocm_path']}/include",
        )
        return word.startswith("-I") and self._map_path(word)[2:].rstrip("/") in includes

    def run(self) -> Translation:
        for line in self.lines:
            self._line(line)
        self._builtin_rules()
        return self.edit.result()

    def _builtin_rules(self) -> None:
        """Objects that no rule of the file makes (``OBJ = main.o stats.o`` with rules for some
        only) are compiled by make's built-in rules, which read ``CPPFLAGS``: in a CUDA Makefile
        their sources may now include HIP headers, so ``CPPFLAGS`` gets the platform macro and
        include folder, at the end (after the file's own assignments to it)."""
        if not (self.is_cuda and self.nvcc_seen) or self._has_platform(
            [flags.Word(v, 0, len(v)) for v in self.values.get("CPPFLAGS", ())]
        ):
            return
        targets: set[str] = set()
        objects: set[str] = set()
        for line in self.lines:
            if line.recipe:
                continue
            code = self.text[line.start : line.code_end]
            rule = None if _ASSIGN.match(code) else _RULE.match(code)
            if rule is not None:
                head = rule.group().rstrip(":")
                if "%" in head:
                    return  # a pattern rule of the file's own may make them
                targets.update(head.split())
            objects.update(_OBJECT.findall(code[rule.end() :] if rule else code))
        if not {o.removeprefix("./") for o in objects} - {t.removeprefix("./") for t in targets}:
            return
        root = f"$({self.data['rocm_variable']})" if self.uses_rocm_var else self.data["rocm_path"]
        added = f"CPPFLAGS += {self.data['platform_define']} -I{root}/include\n"
        end = len(self.text)
        prefix = "" if not self.text or self.text.endswith("\n") else "\n"
        if self.edit.insert(end, prefix + added):
            self.edit.refer(
                end,
                "CPPFLAGS",
                Outcome.TRANSLATED,
                FAMILY,
                added.strip(),
                "objects without a rule of their own are compiled by make's built-in rules, "
                "which read CPPFLAGS; " + self.data["platform_note"],
            )

    def _line(self, line: _Line) -> None:
        m = None if line.recipe else _ASSIGN.match(self.text, line.start, line.code_end)
        value_start = m.end() if m else line.start
        if m and m.group(1) in self.install_vars:
            self._rename_var(m.start(1), m.group(1))
            if self._self_reference(m, line):
                return
        strict_all = bool(m and (self.flag_vars.match(m.group(1)) or m.group(1) in self.nvcc_fed))
        words = _words(self.text, value_start, line.code_end)
        # an nvcc command: the words after the compiler are nvcc options
        # segments: (words, an nvcc context, the host compiler word that starts it)
        segments: list[tuple[list[flags.Word], bool, flags.Word | None]] = []
        commands: list[list[flags.Word]] = []  # the words after nvcc in a recipe
        current: list[flags.Word] = []
        strict, host = strict_all, None
        for word in words:
            if self._is_nvcc(word.text):
                self.nvcc_seen = True
                segments.append((current, strict, host))
                self._compiler(word)
                current, strict, host = [], True, None
                if line.recipe:
                    commands.append(current)
                continue
            if word.text in ("&&", "||", ";", "|"):
                segments.append((current, strict, host))
                current, strict, host = [], strict_all, None
                continue
            if not current and self.is_cuda and line.recipe and self._is_host_compiler(word.text):
                host = word
            current.append(word)
        segments.append((current, strict, host))
        for command in commands:
            self._link_needs(command)
        for segment, is_strict, host in segments:
            self._platform(segment)
            if host is not None:
                self._host_compiler(host, segment)
            self._paths(segment)
            context = flags.FlagContext(
                self.options.offload_arch, self.options.blas, strict=is_strict
            )
            rewrites = flags.translate(segment, context)
            if not is_strict:  # not nvcc's command line: only CUDA libraries and NVIDIA archs
                rewrites = [
                    rw for rw in rewrites if rw.family == "link" or _NV_ARCH.search(rw.name)
                ]
            self.edit.apply_rewrites(segment, rewrites)
        for word in words:
            if _MESSAGE.match(word.text):
                continue  # $(info ...), $(warning ...), $(error ...): text for the user
            at = _NVCC_WORD.search(word.text) or self.embedded_option.search(word.text)
            if at and self.edit.claim(word.start, word.end):
                self.edit.refer(
                    word.start + at.start(),
                    word.text,
                    Outcome.UNKNOWN,
                    FAMILY,
                    None,
                    "nvcc or an nvcc option inside a make expression rocport does not rewrite: "
                    "check it by hand",
                )

    def _self_reference(self, m: re.Match[str], line: _Line) -> bool:
        """``CUDA_HOME = $(CUDA_PATH)`` would become the recursive ``ROCM_PATH = $(ROCM_PATH)``
        (make refuses it): write ``ROCM_PATH ?= /opt/rocm`` instead. True when rewritten."""
        value = self.text[m.end() : line.code_end]
        refs = set(_VAR_REF.findall(value))
        if m.group(2) not in ("=", "?=") or not refs & (
            self.install_vars | {self.data["rocm_variable"]}
        ):
            return False
        new = f"{self.data['rocm_variable']} ?= {self.data['rocm_path']}"
        end = len(self.text[: line.code_end].rstrip())
        if self.edit.replace(
            m.start(1) + len(m.group(1)), end, new[len(self.data["rocm_variable"]) :]
        ):
            self.edit.refer(
                m.start(1),
                self.text[m.start(1) : end],
                Outcome.TRANSLATED,
                FAMILY,
                new,
                "the CUDA install variables become one ROCM_PATH: a self-reference would be "
                "recursive, so it takes the default ROCm path unless already set",
            )
        return True

    def _host_compiler(self, word: flags.Word, words: list[flags.Word]) -> None:
        """A host compiler in a CUDA Makefile may compile files that now include HIP headers: it
        gets the HIP platform macro and include folder (harmless for files that do not)."""
        if self._has_platform(words):
            return
        root = f"$({self.data['rocm_variable']})" if self.uses_rocm_var else self.data["rocm_path"]
        added = f"{self.data['platform_define']} -I{root}/include"
        if self.edit.insert(word.end, f" {added}"):
            self.edit.refer(
                word.start,
                word.text,
                Outcome.TRANSLATED,
                FAMILY,
                f"{word.text} {added}",
                self.data["platform_note"],
            )

    def _compiler(self, word: flags.Word) -> None:
        text = word.text
        body = text[_COMMAND_PREFIX.match(text).end() :]
        if body == "nvcc" or body.endswith("/nvcc"):
            new = text[: -len("nvcc")] + "hipcc"
            new = self._map_path(new)
            if self.edit.replace(word.start, word.end, new):
                self.edit.refer(word.start, text, Outcome.TRANSLATED, FAMILY, new)

    def _rename_var(self, start: int, name: str) -> None:
        new = self.data["rocm_variable"]
        if self.edit.replace(start, start + len(name), new):
            self.edit.refer(start, name, Outcome.TRANSLATED, FAMILY, new)

    def _map_path(self, text: str) -> str:
        if "$" not in text and "cuda" not in text and "nvcc" not in text:
            return text
        rocm_var = self.data["rocm_variable"]

        def var(m: re.Match[str]) -> str:
            name = m.group(1)
            return m.group(0).replace(name, rocm_var) if name in self.install_vars else m.group(0)

        new = _VAR_REF.sub(var, text)
        new = _NVCC_PATH.sub("hipcc", new)
        new = self.install_path.sub(self.data["rocm_path"], new)
        return self.library_dir.sub(lambda m: f"{m[1]}/{self.data['library_dirs'][m[2]]}", new)

    def _paths(self, words: list[flags.Word]) -> None:
        """CUDA install paths and ``$(CUDA_PATH)`` references in words other than the compiler."""
        for word in words:
            new = self._map_path(word.text)
            if new != word.text and self.edit.replace(word.start, word.end, new):
                self.edit.refer(word.start, word.text, Outcome.TRANSLATED, FAMILY, new)

    def _platform(self, words: list[flags.Word]) -> None:
        """``-I<ROCm include dir>`` for a host compiler: add the HIP platform macro beside it."""
        if self.has_platform:
            return
        for word in words:
            mapped = self._map_path(word.text)
            if self._rocm_include(word.text):
                define = self.data["platform_define"]
                if self.edit.replace(word.start, word.end, f"{mapped} {define}"):
                    self.edit.refer(
                        word.start,
                        word.text,
                        Outcome.TRANSLATED,
                        FAMILY,
                        f"{mapped} {define}",
                        self.data["platform_note"],
                    )
                return


def migrate(text: str, options: PortOptions) -> Translation:
    """The hipcc form of a Makefile, with one reference per CUDA construct found."""
    return _MakeMigration(text, options).run()
