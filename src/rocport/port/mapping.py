"""The CUDA -> HIP mapping, loaded from the data files under ``rocport/port/data``.

The data (one JSON file per API family, plus ``includes.json``, ``prefixes.json`` and
``releases.json``) is generated from the real CUDA and HIP headers by
``scripts/gen_mapping.py`` and checked by ``scripts/check_mapping.py``; see
``docs/mapping-data.md``. This module turns it into a :class:`Mapping` for one target ROCm
release::

    from rocport.port.mapping import load_mapping

    m = load_mapping(rocm="5.2")
    e = m.lookup("__shfl_down_sync")     # Entry(hip='__shfl_down', transform='drop_first_arg', ...)
    m.lookup("cudaMalloc").hip           # 'hipMalloc'
    m.lookup("cub")                      # the namespace: Entry(hip='hipcub', kind='namespace')
    m.lookup("cub::DeviceReduce")        # qualified C++ names are keyed "ns::Name"
    m.include("cublas_v2.h").hip         # 'hipblas/hipblas.h'
    m.is_cuda_like("cudaFooBar")         # True: reported as 'unknown' when lookup() is None

Keys are whole CUDA identifiers (never substrings). C++ names inside a CUDA namespace are keyed
with their namespace (``cub::DeviceReduce``, ``cooperative_groups::reduce``) in addition to the
namespace itself (``cub`` -> ``hipcub``), so a translator can rewrite the namespace token and still
report members that HIP lacks.

Release targeting: the per-release facts (``rocport.port.releases``) decide first. A HIP name
the target lacks resolves to the entry's ``older`` form (``hip`` + ``transform``) or becomes
``unsupported`` with the exact release that added it; a name removed by the target becomes its
successor (``hipblasGemmEx_v2`` -> ``hipblasGemmEx``) or ``unsupported``. Where the facts have no
row for the name, the entry's ``since`` applies, but only where that is known: the target is
one of the family's ``verified_releases``, or the ``since`` is cited (it carries a ``source``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any, NamedTuple

from rocport.errors import InputError
from rocport.port.releases import compiler_gaps, header_state, name_state, resolve_release

__all__ = ["Entry", "IncludeEntry", "Mapping", "available_releases", "load_mapping"]

#: the first-argument-dropping transform: ``__shfl_down_sync(mask, v, d)`` -> ``__shfl_down(v, d)``
DROP_FIRST_ARG = "drop_first_arg"
#: the store rewrite: ``__stcs(p, v)`` -> ``(*(p) = (v))``; it needs no HIP name (HIP has no
#: cache-hinted stores, and AMD stores take no such hint)
ASSIGN_THROUGH_POINTER = "assign_through_pointer"
#: the data-type rewrite of hipBLAS < 2.0 Ex calls: ``HIP_R_32F`` arguments become
#: ``HIPBLAS_R_32F`` (``rocport.port.blas_datatypes``)
HIPBLAS_DATATYPE = "hipblas_datatype"
#: transforms that replace the call by plain code: their entries have no ``hip`` name
HIPLESS_TRANSFORMS = frozenset({ASSIGN_THROUGH_POINTER})
BLAS_CHOICES = ("hipblas", "rocblas")
KINDS = frozenset({"function", "type", "enum", "enumerator", "macro", "namespace", "variable"})
STATUSES = frozenset({"supported", "unsupported", "deprecated"})
_VERSION = re.compile(r"(\d+)\.(\d+)(?:\.\d+)*\Z")


class Entry(NamedTuple):
    """What to do with one CUDA identifier for the target release (immutable).

    ``hip`` is the identifier to emit (``None`` when ``status == "unsupported"``); ``transform``
    names a call rewrite to apply as well (``"drop_first_arg"``, or ``"assign_through_pointer"``
    with no ``hip``: the call becomes plain code); ``since``/``header``
    say which ROCm release and HIP header declare ``hip``; ``note`` is a one-line explanation
    for the report.
    """

    cuda: str
    hip: str | None
    kind: str
    family: str
    status: str = "supported"
    since: str | None = None
    header: str | None = None
    note: str | None = None
    transform: str | None = None
    #: calls with another number of arguments become calls of another HIP name:
    #: ``((2, "hipEventCreateWithFlags"),)`` for ``cudaEventCreate(&e, flags)``
    arity: tuple[tuple[int, str], ...] | None = None

    @property
    def supported(self) -> bool:
        """True when there is a HIP form to emit (supported or deprecated)."""
        if self.status == "unsupported":
            return False
        return self.hip is not None or self.transform in HIPLESS_TRANSFORMS


class IncludeEntry(NamedTuple):
    """The HIP header for one CUDA header (as written between ``<>`` or ``""``)."""

    cuda: str
    hip: str | None
    status: str = "supported"
    since: str | None = None
    note: str | None = None

    @property
    def supported(self) -> bool:
        return self.hip is not None and self.status != "unsupported"


@dataclass(frozen=True, slots=True)
class Family:
    """One data file: its name, title, source note and the releases its headers were read for."""

    name: str
    title: str
    source: str
    verified_releases: tuple[str, ...]
    replaces: str | None = None


class Mapping:
    """CUDA identifiers and headers resolved for one ROCm release and BLAS choice."""

    __slots__ = ("rocm", "blas", "entries", "includes", "families", "cuda_like", "user_shaped")

    def __init__(
        self,
        rocm: str,
        blas: str,
        entries: dict[str, Entry],
        includes: dict[str, IncludeEntry],
        families: dict[str, Family],
        cuda_like: re.Pattern[str],
        user_shaped: re.Pattern[str],
    ) -> None:
        self.rocm = rocm
        self.blas = blas
        #: CUDA identifier -> Entry (a plain dict: index it directly in hot loops)
        self.entries = entries
        #: CUDA header path -> IncludeEntry
        self.includes = includes
        self.families = families
        #: matches (with ``.match``) identifiers and header names that look like CUDA's
        self.cuda_like = cuda_like
        #: matches prefixed names shaped like the project's own (``cublas_handle``)
        self.user_shaped = user_shaped

    def lookup(self, name: str) -> Entry | None:
        """The entry for a whole CUDA identifier (or ``ns::Name``), or ``None``."""
        return self.entries.get(name)

    def include(self, path: str) -> IncludeEntry | None:
        """The entry for a CUDA header as written in ``#include <...>``/``"..."``, or ``None``.

        A leading ``./`` is ignored; ``cccl/cub/...`` and ``cub/...`` are the same header.
        """
        entry = self.includes.get(path)
        if entry is None:
            norm = path.removeprefix("./").removeprefix("cccl/")
            entry = self.includes.get(norm)
        return entry

    def is_cuda_like(self, name: str) -> bool:
        """True if identifier ``name`` has a CUDA API prefix (``cuda``, ``cu`` + upper case,
        ``CUBLAS_``) and is not shaped like a project's own name (``cuda_check``)."""
        return self.cuda_like.match(name) is not None and self.user_shaped.match(name) is None

    def __repr__(self) -> str:
        return f"Mapping(rocm={self.rocm!r}, blas={self.blas!r}, entries={len(self.entries)})"


# -- loading ----------------------------------------------------------------------------------
@cache
def _read(name: str) -> dict[str, Any]:
    path = resources.files("rocport.port") / "data" / name
    return json.loads(path.read_text(encoding="utf-8"))


#: data files that describe the mapping rather than hold one API family's rows
META_FILES = frozenset(
    {
        "includes.json",
        "prefixes.json",
        "releases.json",
        "reference_decls.json",
        "hipify_tables.json",
        "cuda_signatures.json",
    }
)


@cache
def _family_files() -> tuple[str, ...]:
    data = resources.files("rocport.port") / "data"
    return tuple(
        sorted(
            p.name for p in data.iterdir() if p.name.endswith(".json") and p.name not in META_FILES
        )
    )


def available_releases() -> tuple[str, ...]:
    """The ROCm releases the data knows, oldest first."""
    return tuple(r["version"] for r in _read("releases.json")["releases"])


def _version(text: str) -> tuple[int, int]:
    m = _VERSION.match(text.strip())
    if not m:
        raise InputError(f"bad ROCm version {text!r} (expected MAJOR.MINOR, e.g. 6.4)")
    return int(m.group(1)), int(m.group(2))


@cache
def _since_key(text: str) -> tuple[int, int]:
    return _version(text)


#: builds an Entry without NamedTuple's Python-level __new__ (about 10k entries per load)
_new_entry = tuple.__new__
_SINCE = Entry._fields.index("since")


def _resolve(
    raw: dict[str, Any], cuda: str, family: str, target: tuple[int, int], target_verified: bool
) -> Entry:
    """One data-file entry as an :class:`Entry` for ``target`` (see the module docstring)."""
    get = raw.get
    hip = get("hip")
    status = get("status") or (
        "supported" if hip or get("transform") in HIPLESS_TRANSFORMS else "unsupported"
    )
    since = get("since")
    if status == "unsupported":
        hip = None
    entry = _new_entry(
        Entry,
        (
            cuda,
            hip,
            raw["kind"],
            family,
            status,
            since,
            get("header"),
            get("note"),
            get("transform"),
            _arity(get("arity")),
        ),
    )
    if hip is not None:
        known = _by_facts(entry, get("older"), target)
        if known is not None:
            return known
    if since is None or hip is None or _since_key(since) <= target:
        return entry
    if not (target_verified or "source" in raw):
        return entry
    older = get("older")
    if older:
        return entry._replace(
            hip=older["hip"],
            transform=older.get("transform"),
            arity=None,
            since=None,
            header=older.get("header"),
            note=older.get("note") or f"{hip} needs ROCm {since}; using {older['hip']}",
        )
    return entry._replace(hip=None, status="unsupported", note=f"{hip} needs ROCm {since} or newer")


def _arity(raw: dict[str, str] | None) -> tuple[tuple[int, str], ...] | None:
    if not raw:
        return None
    return tuple(sorted((int(k), v) for k, v in raw.items()))


def _by_facts(entry: Entry, older: dict[str, Any] | None, target: tuple[int, int]) -> Entry | None:
    """``entry`` for ``target`` where the release facts (``rocport.port.releases``) know whether
    its HIP name or header exists there; ``None`` where they do not."""
    state = (header_state if entry.family == "includes" else name_state)(entry.hip, target)
    if state.kind == "available":
        if entry.since == state.added:
            return entry
        return _new_entry(Entry, (*entry[:_SINCE], state.added, *entry[_SINCE + 1 :]))
    if state.kind == "unknown":
        return None if state.added is None else entry  # a row, but no source for target
    if state.replacement and name_state(state.replacement, target).kind == "available":
        note = f"{state.message}; {state.replacement} takes the same parameters there"
        return entry._replace(hip=state.replacement, since=None, note=note, arity=None)
    if state.kind == "absent" and older:
        return entry._replace(
            hip=older["hip"],
            transform=older.get("transform"),
            since=None,
            header=older.get("header"),
            note=older.get("note") or f"{state.message}; using {older['hip']}",
            arity=None,
        )
    return entry._replace(hip=None, status="unsupported", note=state.message, arity=None)


def _prefix_patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """The CUDA-looking prefixes, and the prefixed names shaped like a project's own."""
    doc = _read("prefixes.json")
    prefixes = re.compile("(?:" + "|".join(p["pattern"] for p in doc["prefixes"]) + ")")
    return prefixes, re.compile(doc["user_shaped"])


@cache
def _load(rocm: str, blas: str) -> Mapping:
    target = _version(rocm)
    families: dict[str, Family] = {}
    raws: list[tuple[Family, dict[str, Any]]] = []
    for name in _family_files():
        doc = _read(name)
        fam = Family(
            doc["family"],
            doc["title"],
            doc["source"],
            tuple(doc.get("verified_releases", ())),
            doc.get("replaces"),
        )
        families[fam.name] = fam
        raws.append((fam, doc))
    active = {f.name for f in families.values() if f.replaces is None}
    replaced: dict[str, str] = {}
    if blas == "rocblas":
        for f in families.values():
            if f.replaces == "cublas":
                replaced[f.replaces] = f.name
                active.add(f.name)
                active.discard("cublas")
    verified_target = {
        f.name: any(_version(v) == target for v in f.verified_releases) for f in families.values()
    }
    entries: dict[str, Entry] = {}
    for fam, doc in raws:
        if fam.name not in active:
            continue
        tv = verified_target[fam.name]
        for cuda, raw in doc["entries"].items():
            entries[cuda] = _resolve(raw, cuda, fam.name, target, tv)
    for macro, note in compiler_gaps(target).items():
        entries.setdefault(macro, Entry(macro, None, "macro", "device", "unsupported", note=note))
    inc_doc = _read("includes.json")
    inc_verified = any(_version(v) == target for v in inc_doc.get("verified_releases", ()))
    includes: dict[str, IncludeEntry] = {}
    variant_includes: dict[str, Any] = {}
    for variant in replaced.values():
        variant_includes.update(next(d for f, d in raws if f.name == variant).get("includes", {}))
    for cuda, raw in {**inc_doc["entries"], **variant_includes}.items():
        e = _resolve({**raw, "kind": "macro"}, cuda, "includes", target, inc_verified)
        includes[cuda] = IncludeEntry(cuda, e.hip, e.status, e.since, e.note)
    return Mapping(
        f"{target[0]}.{target[1]}", blas, entries, includes, families, *_prefix_patterns()
    )


def _extra_entry(cuda: str, value: Any) -> Entry:
    if value is None:
        return Entry(cuda, None, "function", "project", "unsupported")
    if isinstance(value, str):
        return Entry(cuda, value, "function", "project")
    if isinstance(value, dict):
        hip = value.get("hip")
        status = value.get("status", "supported" if hip else "unsupported")
        kind = value.get("kind", "function")
        if status not in STATUSES or kind not in KINDS:
            raise InputError(f"mapping for {cuda!r}: bad status {status!r} or kind {kind!r}")
        if status != "unsupported" and not hip:
            raise InputError(f"mapping for {cuda!r}: no 'hip' name")
        return Entry(
            cuda,
            hip if status != "unsupported" else None,
            kind,
            "project",
            status,
            value.get("since"),
            value.get("header"),
            value.get("note"),
            value.get("transform"),
        )
    raise InputError(
        f"mapping for {cuda!r}: expected a name, a table or nothing, got {type(value).__name__}"
    )


def load_mapping(
    *, rocm: str | None = None, blas: str = "hipblas", extra: dict[str, Any] | None = None
) -> Mapping:
    """Load the mapping resolved for ROCm release ``rocm`` (default: the newest in the data).

    ``rocm`` is a known release (``rocport.port.releases.known_releases()``), ``MAJOR.MINOR``
    or a point release of it (``6.4.3`` uses the ``6.4`` facts); an unknown one is an
    :class:`InputError`. Turning ``auto`` into the installed release is the caller's job.

    ``blas="rocblas"`` swaps the cuBLAS family for its rocBLAS variant. ``extra`` adds
    project-specific names on top (from ``rocport.toml`` or ``--map``): ``{"cudaX": "hipX"}``,
    ``{"cudaX": {"hip": "hipX", "kind": "type", "note": "..."}}`` or ``{"cudaX": None}``
    (known, no HIP equivalent). The parsed data is cached; only ``extra`` costs a copy.
    """
    if blas not in BLAS_CHOICES:
        raise InputError(f"bad --blas {blas!r} (choose {' or '.join(BLAS_CHOICES)})")
    if rocm is None:
        rocm = available_releases()[-1]
    base = _load(resolve_release(rocm).line, blas)
    if not extra:
        return base
    entries = dict(base.entries)
    for cuda, value in extra.items():
        entries[cuda] = _extra_entry(cuda, value)
    return Mapping(
        base.rocm,
        base.blas,
        entries,
        base.includes,
        base.families,
        base.cuda_like,
        base.user_shaped,
    )
