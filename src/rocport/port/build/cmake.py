"""Migrate CMake build files (``CMakeLists.txt``, ``*.cmake``) from the CUDA language to HIP.

Comments are never edited: the tokenizer in :mod:`cmake_syntax` only reports command arguments.
"""

from __future__ import annotations

import functools
import re

from packaging.version import InvalidVersion, Version

from rocport.errors import InputError
from rocport.port.build import flags
from rocport.port.build._data import table
from rocport.port.build._edits import Editor
from rocport.port.build.cmake_syntax import Arg, CMakeSyntaxError, Command, commands
from rocport.port.model import Outcome, PortOptions, Translation

FAMILY = "cmake"
_PROJECT_KEYWORDS = frozenset({"VERSION", "DESCRIPTION", "HOMEPAGE_URL", "LANGUAGES"})
_SET_KEYWORDS = frozenset({"CACHE", "PARENT_SCOPE"})
_TRUE = frozenset({"ON", "TRUE", "YES", "Y", "1"})
_SOURCE_COMMANDS = frozenset(
    {
        "add_executable",
        "add_library",
        "target_sources",
        "set",
        "list",
        "cuda_add_executable",
        "cuda_add_library",
    }
)
_LINK_COMMANDS = frozenset({"target_link_libraries", "link_libraries"})
_OPTION_COMMANDS = frozenset(
    {"target_compile_options", "add_compile_options", "target_link_options", "add_link_options"}
)
_LEGACY_COMMANDS = {
    "cuda_add_executable": "add_executable",
    "cuda_add_library": "add_library",
    "cuda_include_directories": "include_directories",
}
_CUDA_GENEX = re.compile(r"^\$<\$<COMPILE_LANGUAGE:CUDA>:(.*)>$", re.S)
_WORD = re.compile(r"[^\s;]+")
_CUDA_HINT = re.compile(r"CUDA|\.cu\b")
#: file(GLOB) keywords that take no pattern, and those followed by a value
_GLOB_FLAGS = frozenset({"CONFIGURE_DEPENDS", "FOLLOW_SYMLINKS"})
_GLOB_VALUED = frozenset({"LIST_DIRECTORIES", "RELATIVE"})


#: why a CUDA target that ROCm links as a plain library stays as it is outside link commands
_NOT_A_TARGET = (
    "ROCm has no such target (its library is linked through find_library): only link commands "
    "are rewritten, so a TARGET test of it is false on ROCm"
)


def _library_variable(library: str) -> str:
    """The variable that ``find_library`` sets for ``library`` (``ROCTX64_LIBRARY``)."""
    return f"{library.upper()}_LIBRARY"


@functools.cache
def _word_pattern(names: tuple[str, ...]) -> re.Pattern[str]:
    """Any of ``names`` as a whole word (not the tail of a longer name or of ``X::``; after
    the single ``:`` of a generator expression, ``$<$<BOOL:${X}>:CUDA::nvtx3>``, it is one)."""
    alternatives = "|".join(sorted((re.escape(n) for n in names), key=len, reverse=True))
    return re.compile(rf"(?<![A-Za-z0-9_])(?<!::)({alternatives})(?![A-Za-z0-9_])")


class _CMakeMigration:
    def __init__(self, text: str, options: PortOptions) -> None:
        self.data = table("cmake")
        self.options = options
        self.edit = Editor(text)
        self.text = text
        self.targets = ";".join(options.offload_arch)
        self.words = self.data["words"]
        self.word_re = _word_pattern(tuple(self.words))
        self.target_re = _word_pattern(tuple(k for k in self.data["targets"] if "::" in k))
        self.unknown_re = re.compile(self.data["unknown_pattern"])
        self.genex = self.data["genex"]
        self.packages_needed: dict[str, int] = {}  # package -> offset of first use
        self.libraries_needed: dict[str, int] = {}  # library found by find_library -> likewise
        self.found_packages: set[str] = set()
        self.marked_sources: set[str] = set()
        self.enables_hip = False
        self.is_cuda = bool(_CUDA_HINT.search(text))

    # -- driver ---------------------------------------------------------------------------
    def run(self, cmds: list[Command]) -> Translation:
        for cmd in cmds:
            values = cmd.values()
            if cmd.lname == "find_package" and cmd.args:
                self.found_packages.add(cmd.args[0].value)
            elif (
                cmd.lname in ("set_source_files_properties", "set_property")
                and "LANGUAGE" in values
                and values[values.index("LANGUAGE") + 1 :][:1] == ["HIP"]
            ):
                self.marked_sources.update(v for v in values if v.endswith(".cu") or "${" in v)
        find_toolkit = None
        for cmd in cmds:
            name = cmd.lname
            if name == "project":
                self._project(cmd)
            elif name in ("enable_language", "check_language"):
                self._language(cmd)
            elif name == "find_package" and cmd.args:
                if cmd.args[0].value in ("CUDAToolkit", "CUDA") and find_toolkit is None:
                    find_toolkit = cmd
                else:
                    self._rename_package(cmd)
            elif name == "set" and cmd.args:
                self._set(cmd)
            elif (
                name in ("string", "list") and len(cmd.args) >= 2 and cmd.args[0].value == "APPEND"
            ):
                self._append(cmd)
            elif name in ("set_target_properties", "set_property", "set_source_files_properties"):
                self._properties(cmd)
            elif name in _OPTION_COMMANDS:
                self._options(cmd)
            if name in _LEGACY_COMMANDS:
                self._legacy(cmd)
            elif name.startswith("cuda_"):
                self.edit.refer(
                    cmd.start,
                    cmd.name,
                    Outcome.UNKNOWN,
                    FAMILY,
                    None,
                    "FindCUDA command with no HIP form",
                )
            if name in _LINK_COMMANDS:
                self._link(cmd)
            if name in _SOURCE_COMMANDS:
                self._sources(cmd)
            elif name == "aux_source_directory" and len(cmd.args) == 2 and self.is_cuda:
                self._aux_sources(cmd)
            elif name == "file" and cmd.values()[:1] in (["GLOB"], ["GLOB_RECURSE"]):
                self._glob_sources(cmd)
            self._generic(cmd)
        if find_toolkit is not None:
            self._find_toolkit(find_toolkit)
        else:
            self._find_missing_packages()
        if self.enables_hip:
            for cmd in cmds:
                if cmd.lname == "cmake_minimum_required":
                    self._minimum_version(cmd)
        return self.edit.result()

    # -- helpers --------------------------------------------------------------------------
    def _replace_arg(
        self, arg: Arg, new_value: str, note: str | None = None, *, refer: bool = True
    ) -> bool:
        if not self.edit.replace(arg.value_start, arg.value_end, new_value):
            return False
        if refer:
            self.edit.refer(arg.start, arg.value, Outcome.TRANSLATED, FAMILY, new_value, note)
        return True

    def _line_end(self, offset: int) -> int:
        nl = self.text.find("\n", offset)
        return len(self.text) if nl == -1 else nl

    def _insert_after(self, cmd: Command, lines: list[str]) -> None:
        indent = self.edit.indent_at(cmd.start)
        self.edit.insert(self._line_end(cmd.end), "".join(f"\n{indent}{line}" for line in lines))

    def _disable(self, cmd: Command, note: str, replacement: list[str] | None = None) -> None:
        """Comment out a whole command (its lines) and optionally put new commands after it."""
        begin = self.edit.line_start(cmd.start)
        end = self._line_end(cmd.end)
        original = self.text[begin:end]
        indent = self.edit.indent_at(cmd.start)
        commented = "\n".join(
            f"{indent}# {line[len(indent) :] if line.startswith(indent) else line}"
            for line in original.split("\n")
        )
        if not self.edit.replace(begin, end, commented):
            return
        if replacement:
            self.edit.insert(end, "".join(f"\n{indent}{line}" for line in replacement))
        self.edit.refer(
            cmd.start,
            self.text[cmd.start : cmd.end],
            Outcome.TRANSLATED,
            FAMILY,
            "\n".join(replacement) if replacement else "",
            note,
        )

    def _need(self, package: str, offset: int) -> None:
        self.packages_needed.setdefault(package, offset)

    def _library(self, library: str, offset: int) -> str:
        """``${ROCTX64_LIBRARY}``: the variable that a ``find_library`` inserted before the
        first use sets (for a ROCm library that ships no CMake package)."""
        self.libraries_needed.setdefault(library, offset)
        return f"${{{_library_variable(library)}}}"

    def _find_libraries(self) -> list[str]:
        hints = " ".join(self.data["library_hints"])
        return [
            f"find_library({_library_variable(name)} {name} HINTS {hints} REQUIRED)"
            for name in sorted(self.libraries_needed)
        ]

    # -- languages --------------------------------------------------------------------------
    def _project(self, cmd: Command) -> None:
        args = cmd.args[1:]
        values = [a.value for a in args]
        if "LANGUAGES" in values:
            start = values.index("LANGUAGES") + 1
        elif any(v in _PROJECT_KEYWORDS for v in values):
            return
        else:
            start = 0
        langs: list[Arg] = []
        for arg in args[start:]:
            if arg.value in _PROJECT_KEYWORDS:
                break
            langs.append(arg)
        cuda = [a for a in langs if a.value == "CUDA"]
        if not cuda:
            return
        has_cxx = any(a.value == "CXX" for a in langs)
        new = "HIP" if has_cxx else "CXX HIP"
        note = (
            None
            if has_cxx
            else "HIP needs the CXX language too (hip-config.cmake checks CXX flags)"
        )
        self._replace_arg(cuda[0], new, note)
        self.enables_hip = True

    def _language(self, cmd: Command) -> None:
        for arg in cmd.args:
            if arg.value == "CUDA":
                self._replace_arg(arg, "HIP")
                self.enables_hip = True

    def _minimum_version(self, cmd: Command) -> None:
        values = cmd.values()
        if "VERSION" not in values or values.index("VERSION") + 1 >= len(values):
            return
        arg = cmd.args[values.index("VERSION") + 1]
        low, dots, high = arg.value.partition("...")
        minimum = self.data["minimum_cmake"]
        try:
            if Version(low) >= Version(minimum):
                return
            if dots and Version(high) < Version(minimum):
                high = minimum
        except InvalidVersion:
            return
        self._replace_arg(arg, f"{minimum}{dots}{high}", f"the HIP language needs CMake {minimum}")

    # -- packages ---------------------------------------------------------------------------
    def _find_toolkit(self, cmd: Command) -> None:
        legacy = cmd.args[0].value == "CUDA"
        keep = [a.value for a in cmd.args[1:] if a.value in ("REQUIRED", "QUIET")]
        suffix = "".join(f" {k}" for k in keep)
        lines = [f"find_package(hip{suffix})"]
        lines += [
            f"find_package({pkg}{suffix})"
            for pkg in sorted(self.packages_needed)
            if pkg != "hip" and pkg not in self.found_packages
        ]
        lines += self._find_libraries()
        if legacy and not self.enables_hip:
            lines.append("enable_language(HIP)")
            self.enables_hip = True
        old = self.text[cmd.start : cmd.end]
        self.edit.replace(cmd.start, cmd.end, lines[0])
        if lines[1:]:
            indent = self.edit.indent_at(cmd.start)
            self.edit.insert(
                self._line_end(cmd.end), "".join(f"\n{indent}{ln}" for ln in lines[1:])
            )
        note = "the HIP runtime package and one package per ROCm library linked in this file"
        if self.libraries_needed:
            note += " (a library without a package found by find_library)"
        if legacy and lines[-1] == "enable_language(HIP)":
            note += "; FindCUDA compiled .cu files itself, HIP needs the language enabled"
        self.edit.refer(cmd.start, old, Outcome.TRANSLATED, FAMILY, "\n".join(lines), note)

    def _find_missing_packages(self) -> None:
        missing = [p for p in self.packages_needed if p not in self.found_packages]
        if not missing and not self.libraries_needed:
            return
        first = min(
            [self.packages_needed[p] for p in missing] + list(self.libraries_needed.values())
        )
        indent = self.edit.indent_at(first)
        lines = [f"find_package({p} REQUIRED)" for p in sorted(missing)]
        lines += self._find_libraries()
        self.edit.insert(self.edit.line_start(first), "".join(f"{indent}{ln}\n" for ln in lines))

    def _rename_package(self, cmd: Command) -> None:
        arg = cmd.args[0]
        package = self.data["packages"].get(arg.value)
        if package is None:
            return
        self._replace_arg(
            arg, package, "its variables differ from the CUDA package's: check their uses"
        )

    # -- variables and properties --------------------------------------------------------------
    def _set(self, cmd: Command) -> None:
        name = cmd.args[0]
        row = self.words.get(name.value)
        if row is None:
            return
        values = [a for a in cmd.args[1:]]
        for i, a in enumerate(values):
            if a.value in _SET_KEYWORDS:
                values = values[:i]
                break
        if row.get("nvcc_list"):
            self._nvcc_list(cmd, row, values)
        elif row.get("rdc"):
            on = any(a.value.upper() in _TRUE for a in values)
            self._disable(
                cmd,
                row["note"],
                [
                    "add_compile_options($<$<COMPILE_LANGUAGE:HIP>:-fgpu-rdc>)",
                    'add_link_options("$<$<LINK_LANGUAGE:HIP>:-fgpu-rdc;--hip-link>")',
                ]
                if on
                else None,
            )
        elif row["hip"] is None:
            self._disable(cmd, row.get("note"))
        elif row.get("architectures"):
            self._architectures(values)
        elif row.get("flags"):
            for arg in values:
                self._flag_arg(arg, strict=True)

    def _append(self, cmd: Command) -> None:
        row = self.words.get(cmd.args[1].value)
        if row and row.get("nvcc_list") and cmd.lname == "list":
            self._nvcc_list(cmd, row, cmd.args[2:])
        elif row and row.get("flags"):
            for arg in cmd.args[2:]:
                self._flag_arg(arg, strict=True)

    def _architectures(self, values: list[Arg]) -> None:
        if not values:
            return
        old = ";".join(a.value for a in values)
        first = values[0]
        new = f'"{self.targets}"'  # a list: unquoted, gfx90a;gfx942 would be two arguments
        if not self.edit.replace(first.start, values[-1].end, new):
            return
        self.edit.refer(
            first.start,
            old,
            Outcome.TRANSLATED,
            FAMILY,
            self.targets,
            f"NVIDIA architectures {old} replaced by the chosen AMD targets",
        )

    def _properties(self, cmd: Command) -> None:
        values = cmd.values()
        is_target = cmd.lname == "set_target_properties" or (values[:1] == ["TARGET"])
        if cmd.lname == "set_property":
            if "PROPERTY" not in values or values.index("PROPERTY") + 1 >= len(values):
                return
            k = values.index("PROPERTY")
            owners = [a.value for a in cmd.args[1:k]] if is_target else []
            removed, rdc = self._property(cmd, cmd.args[k + 1], cmd.args[k + 2 :])
            if removed:
                self._disable(
                    cmd, self.words[cmd.args[k + 1].value].get("note"), self._rdc_lines(owners, rdc)
                )
            return
        if "PROPERTIES" not in values:
            return
        k = values.index("PROPERTIES")
        owners = [a.value for a in cmd.args[:k]] if is_target else []
        pairs = cmd.args[k + 1 :]
        removals: list[tuple[Arg, Arg]] = []
        any_rdc = False
        for j in range(0, len(pairs) - 1, 2):
            removed, rdc = self._property(cmd, pairs[j], [pairs[j + 1]])
            any_rdc |= rdc
            if removed:
                removals.append((pairs[j], pairs[j + 1]))
        if not removals:
            return
        if len(removals) == len(pairs) // 2:
            self._disable(cmd, "no HIP property remains", self._rdc_lines(owners, any_rdc))
            return
        for key, value in removals:
            start = key.start
            while start > 0 and self.text[start - 1] in " \t":
                start -= 1
            if self.edit.replace(start, value.end, ""):
                self.edit.refer(
                    key.start,
                    f"{key.value} {value.value}",
                    Outcome.TRANSLATED,
                    FAMILY,
                    "",
                    self.words[key.value].get("note"),
                )
        if any_rdc:
            self._insert_after(cmd, self._rdc_lines(owners, True))

    @staticmethod
    def _rdc_lines(owners: list[str], rdc: bool) -> list[str]:
        if not rdc:
            return []
        lines: list[str] = []
        for t in owners:
            lines.append(
                f"target_compile_options({t} PRIVATE $<$<COMPILE_LANGUAGE:HIP>:-fgpu-rdc>)"
            )
            lines.append(
                f'target_link_options({t} PUBLIC "$<$<LINK_LANGUAGE:HIP>:-fgpu-rdc;--hip-link>")'
            )
        return lines

    def _property(self, cmd: Command, key: Arg, vals: list[Arg]) -> tuple[bool, bool]:
        """Rewrite one property: (the pair must go, it asks for relocatable device code)."""
        if key.value == "LANGUAGE" and cmd.lname in ("set_source_files_properties", "set_property"):
            for v in vals:
                if v.value == "CUDA":
                    self._replace_arg(v, "HIP")
            return False, False
        row = self.words.get(key.value)
        if row is None or row["kind"] != "property":
            return False, False
        if row.get("architectures"):
            self._replace_arg(key, row["hip"], refer=False)
            self._architectures(vals)
            return False, False
        if row["hip"] is not None:
            return False, False  # renamed by the generic word pass
        return True, bool(row.get("rdc")) and any(v.value.upper() in _TRUE for v in vals)

    # -- options, links, sources ------------------------------------------------------------
    def _flag_arg(
        self, arg: Arg, *, strict: bool, inner: tuple[int, int] | None = None, joiner: str = " "
    ) -> None:
        """Translate the nvcc options in one argument; ``joiner`` is ";" where it is a list."""
        start, end = inner or (arg.value_start, arg.value_end)
        words = [
            flags.Word(m.group(), m.start(), m.end()) for m in _WORD.finditer(self.text, start, end)
        ]
        context = flags.FlagContext(self.options.offload_arch, self.options.blas, strict=strict)
        rewrites = flags.translate(words, context)
        self.edit.apply_rewrites(words, rewrites, joiner=joiner)

    def _options(self, cmd: Command) -> None:
        for arg in cmd.args:
            m = _CUDA_GENEX.match(arg.value) if arg.kind != "bracket" else None
            if m:
                head = arg.value_start + arg.value.index("CUDA")
                if self.edit.replace(head, head + 4, "HIP"):
                    self.edit.refer(
                        head,
                        "COMPILE_LANGUAGE:CUDA",
                        Outcome.TRANSLATED,
                        FAMILY,
                        "COMPILE_LANGUAGE:HIP",
                    )
                self._flag_arg(
                    arg,
                    strict=True,
                    inner=(arg.value_start + m.start(1), arg.value_start + m.end(1)),
                    joiner=";",
                )
            elif arg.value.startswith("-"):
                self._flag_arg(arg, strict=False, joiner=";" if arg.kind == "unquoted" else " ")

    def _link(self, cmd: Command) -> None:
        for arg in cmd.args[1:] if cmd.lname == "target_link_libraries" else cmd.args:
            value = arg.value
            variable = re.fullmatch(r"\$\{(\w+)\}", value)
            if variable and variable.group(1) in self.data["link_variables"]:
                value = self.data["link_variables"][variable.group(1)]
            row = self.data["targets"].get(value)
            if row is None and "::" not in value:
                found = flags.library(value.removeprefix("-l"), self.options.blas)
                if found is not None:
                    outcome, hip, note = found
                    if outcome is Outcome.TRANSLATED and hip is not None:
                        self._replace_arg(arg, ("-l" if value.startswith("-l") else "") + hip, note)
                    elif outcome is Outcome.TRANSLATED:
                        self._drop_arg(arg, note)
                    elif self.edit.claim(arg.start, arg.end):
                        self.edit.refer(arg.start, value, outcome, FAMILY, None, note)
                continue
            if row is None:
                continue
            if "library" in row:
                self._replace_arg(arg, self._library(row["library"], cmd.start), row.get("note"))
                continue
            if row.get("status") == "unsupported":
                if self.edit.claim(arg.start, arg.end):
                    self.edit.refer(
                        arg.start, arg.value, Outcome.UNSUPPORTED, FAMILY, None, row.get("note")
                    )
                continue
            hip, package = self._target(row)
            if hip is None:
                self._drop_arg(arg, row.get("note"))
                continue
            self._replace_arg(arg, hip, row.get("note"))
            self._need(package, cmd.start)

    def _drop_arg(self, arg: Arg, note: str | None) -> None:
        start = arg.start
        while start > 0 and self.text[start - 1] in " \t":
            start -= 1
        if self.edit.replace(start, arg.end, ""):
            self.edit.refer(arg.start, arg.value, Outcome.TRANSLATED, FAMILY, "", note)

    def _target(self, row: dict) -> tuple[str | None, str]:
        variant = row.get(self.options.blas) if self.options.blas != "hipblas" else None
        chosen = variant or row
        return chosen.get("hip"), chosen.get("package", "hip")

    def _sources(self, cmd: Command) -> None:
        sources = [
            a
            for a in cmd.args
            if a.value.endswith(".cu") and "$" not in a.value and a.value not in self.marked_sources
        ]
        if not sources:
            return
        if cmd.lname == "list" and (not cmd.args or cmd.args[0].value not in ("APPEND", "INSERT")):
            return
        self.marked_sources.update(a.value for a in sources)
        listed = " ".join(self.text[a.start : a.end] for a in sources)
        self._insert_after(cmd, [f"set_source_files_properties({listed} PROPERTIES LANGUAGE HIP)"])
        self.edit.refer(
            sources[0].start,
            listed,
            Outcome.TRANSLATED,
            FAMILY,
            "LANGUAGE HIP",
            "CUDA sources keep their names and are compiled as HIP",
        )

    def _aux_sources(self, cmd: Command) -> None:
        """aux_source_directory collects the sources of the enabled languages: ``.cu`` files
        were CUDA's, and HIP's extension is ``.hip``, so they are globbed and marked HIP."""
        folder, var = cmd.args[0], cmd.args[1].value
        found = f"_rocport_{var}_cu"
        if f"${{{found}}}" in self.marked_sources:
            return
        pattern = self.text[folder.value_start : folder.value_end] + "/*.cu"
        self._insert_after(
            cmd,
            [
                f'file(GLOB {found} "{pattern}")',
                f"list(APPEND {var} ${{{found}}})",
                f"set_source_files_properties(${{{found}}} PROPERTIES LANGUAGE HIP)",
            ],
        )
        self.edit.refer(
            cmd.start,
            "aux_source_directory",
            Outcome.TRANSLATED,
            FAMILY,
            f"+ {pattern} as HIP",
            "aux_source_directory gathers .cu files only while CUDA is enabled: they are added "
            "and compiled as HIP",
        )

    def _glob_sources(self, cmd: Command) -> None:
        """``file(GLOB VAR *.cu ...)``: the ``.cu`` files found get the HIP language."""
        if len(cmd.args) < 3:
            return
        var = cmd.args[1].value
        patterns, skip = [], False
        for arg in cmd.args[2:]:
            if skip:
                skip = False
            elif arg.value in _GLOB_VALUED:
                skip = True
            elif arg.value not in _GLOB_FLAGS:
                patterns.append(arg.value)
        cuda = [p for p in patterns if p.endswith(".cu")]
        if not cuda:
            return
        if cuda == patterns:
            marked, lines = var, []
        else:
            marked = f"_rocport_{var}_cu"
            lines = [f"set({marked} ${{{var}}})", f'list(FILTER {marked} INCLUDE REGEX "\\.cu$")']
        if f"${{{marked}}}" in self.marked_sources:
            return
        self.marked_sources.add(f"${{{marked}}}")
        lines.append(f"set_source_files_properties(${{{marked}}} PROPERTIES LANGUAGE HIP)")
        self._insert_after(cmd, lines)
        self.edit.refer(
            cmd.args[1].start,
            var,
            Outcome.TRANSLATED,
            FAMILY,
            "LANGUAGE HIP",
            "CUDA sources gathered by file(GLOB) keep their names and are compiled as HIP",
        )

    def _nvcc_tokens(self, args: list[Arg]) -> list[str]:
        """The hipcc options for a list of nvcc option arguments (each rewrite is reported)."""
        words = [flags.Word(a.value, a.start, a.end) for a in args]
        context = flags.FlagContext(self.options.offload_arch, self.options.blas, strict=True)
        rewrites = {rw.first: rw for rw in flags.translate(words, context)}
        tokens: list[str] = []
        i = 0
        while i < len(words):
            rw = rewrites.get(i)
            if rw is None:
                tokens.append(words[i].text)
                i += 1
                continue
            hip = rw.hip if rw.outcome is Outcome.TRANSLATED else None
            self.edit.refer(words[i].start, rw.name, rw.outcome, rw.family, hip, rw.note)
            tokens.extend(rw.tokens)
            i = rw.last
        return tokens

    def _nvcc_list(self, cmd: Command, row: dict, values: list[Arg]) -> None:
        """``set``/``list(APPEND)`` of FindCUDA's CUDA_NVCC_FLAGS: directory-wide HIP options."""
        args = [a for a in values if a.value != "${CUDA_NVCC_FLAGS}"]
        tokens = self._nvcc_tokens(args)
        option = f'add_compile_options("$<$<COMPILE_LANGUAGE:HIP>:{";".join(tokens)}>")'
        self._disable(cmd, row["note"], [option] if tokens else None)

    def _legacy(self, cmd: Command) -> None:
        new = _LEGACY_COMMANDS[cmd.lname]
        self.edit.replace(cmd.start, cmd.start + len(cmd.name), new)
        self.edit.refer(cmd.start, cmd.name, Outcome.TRANSLATED, FAMILY, new, "FindCUDA command")
        values = cmd.values()
        if "OPTIONS" not in values or not cmd.args or new == "include_directories":
            return
        k = values.index("OPTIONS")
        tokens = self._nvcc_tokens(
            [a for a in cmd.args[k + 1 :] if a.value not in ("RELEASE", "DEBUG")]
        )
        start = cmd.args[k].start
        while start > 0 and self.text[start - 1] in " \t\n":
            start -= 1
        self.edit.replace(start, cmd.args[-1].end, "")
        lines = []
        if tokens:
            target = cmd.args[0].value
            genex = ";".join(tokens)
            lines.append(
                f"target_compile_options({target} PRIVATE $<$<COMPILE_LANGUAGE:HIP>:{genex}>)"
            )
            self._insert_after(cmd, lines)
        self.edit.refer(
            cmd.args[k].start,
            "OPTIONS",
            Outcome.TRANSLATED,
            FAMILY,
            lines[0] if lines else "",
            "FindCUDA's nvcc options become the target's HIP compile options",
        )

    # -- every argument ----------------------------------------------------------------------
    def _generic(self, cmd: Command) -> None:
        for arg in cmd.args:
            if arg.kind == "bracket":
                continue
            for key, hip in self.genex.items():
                pos = arg.value.find(key)
                while pos != -1:
                    at = arg.value_start + pos
                    cuda = key.index("CUDA")
                    hip_cuda = hip.index("HIP")
                    # rewrite the whole genex head (language and compiler id)
                    if self.edit.replace(at + cuda, at + len(key), hip[hip_cuda:]):
                        self.edit.refer(at, key, Outcome.TRANSLATED, FAMILY, hip)
                    pos = arg.value.find(key, pos + len(key))
            for m in self.word_re.finditer(arg.value):
                row = self.words[m.group()]
                at = arg.value_start + m.start()
                if row["hip"] is None:
                    if self.edit.claim(at, at + len(m.group())):
                        self.edit.refer(
                            at, m.group(), Outcome.UNSUPPORTED, FAMILY, None, row.get("note")
                        )
                    continue
                if self.edit.replace(at, at + len(m.group()), row["hip"]):
                    self.edit.refer(
                        at, m.group(), Outcome.TRANSLATED, FAMILY, row["hip"], row.get("note")
                    )
            for m in self.target_re.finditer(arg.value):
                row = self.data["targets"][m.group()]
                at = arg.value_start + m.start()
                hip, package = self._target(row)
                if "library" in row and cmd.lname in _LINK_COMMANDS:  # a variable: linked only
                    new = self._library(row["library"], cmd.start)
                    if self.edit.replace(at, at + len(m.group()), new):
                        self.edit.refer(at, m.group(), Outcome.TRANSLATED, FAMILY, new, row["note"])
                    continue
                if row.get("status") == "unsupported" or hip is None:
                    note = _NOT_A_TARGET if "library" in row else row.get("note")
                    if self.edit.claim(at, at + len(m.group())):
                        self.edit.refer(at, m.group(), Outcome.UNSUPPORTED, FAMILY, None, note)
                    continue
                if self.edit.replace(at, at + len(m.group()), hip):
                    self.edit.refer(at, m.group(), Outcome.TRANSLATED, FAMILY, hip, row.get("note"))
                    self._need(package, cmd.start)
            self._unknown(arg)

    def _unknown(self, arg: Arg) -> None:
        """Report CUDA-looking names that no rule above claimed."""
        for m in re.finditer(r"[A-Za-z_][A-Za-z0-9_]*(?:::[A-Za-z0-9_]+)?", arg.value):
            word = m.group()
            if not self.unknown_re.fullmatch(word):
                continue
            if word in self.words or word in self.data["targets"]:
                continue
            at = arg.value_start + m.start()
            if not self.edit.claim(at, at + len(word)):
                continue
            self.edit.refer(
                at, word, Outcome.UNKNOWN, FAMILY, None, "CUDA CMake name with no known HIP form"
            )


def migrate(text: str, options: PortOptions) -> Translation:
    """The HIP form of a CMake file, with one reference per CUDA construct found."""
    try:
        cmds = list(commands(text))
    except CMakeSyntaxError as exc:
        raise InputError(f"CMake syntax error at {exc}") from None
    return _CMakeMigration(text, options).run(cmds)
