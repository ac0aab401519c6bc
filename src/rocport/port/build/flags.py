"""Translate nvcc command-line options and CUDA link libraries to their hipcc/clang forms.

The translator works on a sequence of :class:`Word` (an option as written, with its offsets in the
file) so that each build-system module can splice the result back into its own syntax.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rocport.port.build._data import nvcc_flag_index, table
from rocport.port.model import Outcome


@dataclass(frozen=True, slots=True)
class Word:
    """One whitespace-separated word of a command line, as written, at ``start:end`` of its file."""

    text: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Rewrite:
    """Words ``first:last`` of the input become ``tokens`` (the same words when kept unchanged)."""

    first: int
    last: int
    tokens: tuple[str, ...]
    name: str
    outcome: Outcome
    family: str
    note: str | None = None

    @property
    def hip(self) -> str:
        return " ".join(self.tokens)


@dataclass(frozen=True, slots=True)
class FlagContext:
    """How to translate: the AMD targets for arch options (None drops them) and the BLAS choice.

    ``strict`` marks a command line known to be nvcc's: an option that is neither mapped nor a
    plain compiler option is then reported as unsupported.
    """

    targets: tuple[str, ...] | None
    blas: str = "hipblas"
    strict: bool = True
    arch_note: str | None = None


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value


def _split_option(text: str) -> tuple[str, dict, str | None] | None:
    """(canonical nvcc option, row, attached value or None) when ``text`` is a known nvcc option."""
    index = nvcc_flag_index()
    if text in index:
        canonical, row = index[text]
        return canonical, row, None
    name, eq, value = text.partition("=")
    if eq and name in index and index[name][1].get("takes_value"):
        canonical, row = index[name]
        return canonical, row, value
    return None


def library(name: str, blas: str = "hipblas") -> tuple[Outcome, str | None, str | None] | None:
    """(outcome, HIP library or None to drop it, note) for a CUDA library; None if not CUDA's."""
    row = table("link_libraries")["libraries"].get(name)
    if row is None:
        return None
    if row.get("status") == "unsupported":
        return Outcome.UNSUPPORTED, None, row.get("note")
    hip = row.get(blas, row["hip"]) if blas != "hipblas" else row["hip"]
    return Outcome.TRANSLATED, hip, row.get("note")


def _is_passthrough(text: str) -> bool:
    """hipcc accepts ``text`` as it is: its longest probed option family was accepted by every
    probed hipcc (``data/hipcc_options.json``, written by scripts/probe_hipcc_options.py)."""
    options = table("hipcc_options")["options"]
    family = max((f for f in options if text.startswith(f)), key=len, default=None)
    return family is not None and all(options[family]["accepted"].values())


def translate(words: Sequence[Word], context: FlagContext) -> list[Rewrite]:
    """The rewrites of one command line (or flag list); words not mentioned stay as they are."""
    rewrites: list[Rewrite] = []
    arch_done = False
    i = 0
    while i < len(words):
        text = words[i].text
        option = _split_option(text)
        if option is not None:
            canonical, row, value = option
            last = i + 1
            if row.get("takes_value") and value is None:
                if last >= len(words):
                    rewrites.append(
                        Rewrite(
                            i,
                            last,
                            (text,),
                            text,
                            Outcome.UNSUPPORTED,
                            "nvcc",
                            f"{canonical} needs a value",
                        )
                    )
                    i = last
                    continue
                value = words[last].text
                last += 1
            name = " ".join(w.text for w in words[i:last])
            action = row["action"]
            note = row.get("note")
            if action == "arch":
                if context.targets is None:
                    tokens: tuple[str, ...] = ()
                    note = context.arch_note or note
                elif arch_done:
                    tokens = ()
                    note = "merged into the --offload-arch options of the first architecture option"
                else:
                    tokens = tuple(f"--offload-arch={t}" for t in context.targets)
                arch_done = True
                rewrites.append(Rewrite(i, last, tokens, name, Outcome.TRANSLATED, "nvcc", note))
            elif action == "host_options":
                inner = _unquote(value or "")
                parts = [inner] if inner.startswith("-Wl,") else inner.replace(",", " ").split()
                rewrites.append(
                    Rewrite(i, last, tuple(parts), name, Outcome.TRANSLATED, "nvcc", note)
                )
            elif action == "linker_options":
                rewrites.append(
                    Rewrite(
                        i,
                        last,
                        (f"-Wl,{_unquote(value or '')}",),
                        name,
                        Outcome.TRANSLATED,
                        "nvcc",
                        note,
                    )
                )
            elif action == "unsupported":
                rewrites.append(
                    Rewrite(
                        i,
                        last,
                        tuple(w.text for w in words[i:last]),
                        name,
                        Outcome.UNSUPPORTED,
                        "nvcc",
                        note,
                    )
                )
            elif "by_value" in row:
                mapped = row["by_value"].get(_unquote(value or "").lower(), row.get("otherwise"))
                if mapped is None:
                    rewrites.append(
                        Rewrite(
                            i,
                            last,
                            tuple(w.text for w in words[i:last]),
                            name,
                            Outcome.UNSUPPORTED,
                            "nvcc",
                            f"no hipcc form for {canonical}={value}",
                        )
                    )
                else:
                    rewrites.append(
                        Rewrite(i, last, tuple(mapped), name, Outcome.TRANSLATED, "nvcc", note)
                    )
            else:
                rewrites.append(
                    Rewrite(i, last, tuple(row["hip"]), name, Outcome.TRANSLATED, "nvcc", note)
                )
            i = last
            continue
        rewrite = _macro(words, i) or _link(words, i, context)
        if rewrite is not None:
            rewrites.append(rewrite)
            i = rewrite.last
            continue
        if context.strict and text.startswith("-") and not _is_passthrough(text):
            rewrites.append(
                Rewrite(
                    i,
                    i + 1,
                    (text,),
                    text,
                    Outcome.UNSUPPORTED,
                    "nvcc",
                    "nvcc option with no known hipcc form",
                )
            )
        i += 1
    return rewrites


def _macro(words: Sequence[Word], i: int) -> Rewrite | None:
    """``-D``/``-U`` of a CUDA configuration macro (``-U__CUDA_NO_HALF_OPERATORS__``)."""
    text = words[i].text
    if text[:2] not in ("-D", "-U"):
        return None
    last = i + 1
    body = text[2:]
    if not body and last < len(words):
        body, last = words[last].text, last + 1
    macro, eq, value = body.partition("=")
    row = table("nvcc_flags")["macros"].get(macro)
    if row is None:
        return None
    name = " ".join(w.text for w in words[i:last])
    if row["hip"] is None:
        return Rewrite(i, last, (), name, Outcome.TRANSLATED, "nvcc", row.get("note"))
    return Rewrite(
        i,
        last,
        (f"{text[:2]}{row['hip']}{eq}{value}",),
        name,
        Outcome.TRANSLATED,
        "nvcc",
        row.get("note"),
    )


def _link(words: Sequence[Word], i: int, context: FlagContext) -> Rewrite | None:
    """``-l<cuda library>``."""
    text = words[i].text
    if not text.startswith("-l") or len(text) < 3:
        return None
    found = library(text[2:], context.blas)
    if found is None:
        return None
    outcome, hip, note = found
    if outcome is Outcome.UNSUPPORTED:
        return Rewrite(i, i + 1, (text,), text, outcome, "link", note)
    return Rewrite(i, i + 1, (f"-l{hip}",) if hip else (), text, outcome, "link", note)
