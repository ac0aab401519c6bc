#!/usr/bin/env python3
"""Check rocport's mapping data against the real HIP headers.

For every family file under src/rocport/port/data/:
- the file has ``schema``, ``family``, ``title``, ``source`` and valid ``verified_releases``;
- no key appears twice (in a file, or in two base families);
- every entry has a valid shape (kind, status, ``hip`` unless unsupported, ``since`` format,
  ``older`` with ``hip`` and a known ``transform``);
- every ``hip`` name is declared by the family's HIP headers in each verified release from its
  ``since`` on (a release older than ``since`` must declare the ``older`` name instead), and the
  ``header`` it names exists;
- every HIP header in includes.json exists in each verified release from its ``since`` on.

    python3 scripts/check_mapping.py                 # all releases in releases.json
    python3 scripts/check_mapping.py --release 5.2   # only ROCm 5.2 (/usr/include)

Exit status: 0 clean, 1 problems found (listed), 2 a release's headers are missing.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gen_mapping as gen  # noqa: E402
import signatures  # noqa: E402

KINDS = {"function", "type", "enum", "enumerator", "macro", "namespace", "variable"}
STATUSES = {"supported", "unsupported", "deprecated"}
TRANSFORMS = {"drop_first_arg", "assign_through_pointer", "hipblas_datatype"}
#: transforms whose entries need no hip name (the call becomes plain code)
HIPLESS_TRANSFORMS = {"assign_through_pointer"}
ENTRY_KEYS = {
    "hip",
    "kind",
    "status",
    "since",
    "header",
    "note",
    "older",
    "transform",
    "source",
    "signature",
    "arity",
}
VERSION = re.compile(r"\d+\.\d+\Z")
META = {
    "includes.json",
    "prefixes.json",
    "releases.json",
    "reference_decls.json",
    "hipify_tables.json",
    "cuda_signatures.json",
}


def _unique_pairs(pairs: list[tuple[str, object]]) -> dict:
    out: dict = {}
    for k, v in pairs:
        if k in out:
            raise ValueError(f"duplicate key {k!r}")
        out[k] = v
    return out


def load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"), object_pairs_hook=_unique_pairs)


def vkey(v: str) -> tuple[int, ...]:
    return tuple(int(x) for x in v.split("."))


def check_shape(name: str, cuda: str, e: dict, problems: list[str]) -> None:
    where = f"{name}: {cuda}"
    if not isinstance(e, dict):
        problems.append(f"{where}: entry is not an object")
        return
    if extra := set(e) - ENTRY_KEYS:
        problems.append(f"{where}: unknown keys {sorted(extra)}")
    if e.get("kind") not in KINDS:
        problems.append(f"{where}: bad kind {e.get('kind')!r}")
    status = e.get("status", "supported")
    if status not in STATUSES:
        problems.append(f"{where}: bad status {status!r}")
    if status == "unsupported" and "hip" in e:
        problems.append(f"{where}: unsupported entry has a hip name")
    if status != "unsupported" and not e.get("hip"):
        if e.get("transform") not in HIPLESS_TRANSFORMS:
            problems.append(f"{where}: no hip name")
    elif e.get("transform") in HIPLESS_TRANSFORMS:
        problems.append(f"{where}: {e['transform']} takes no hip name")
    if "since" in e and not VERSION.match(str(e["since"])):
        problems.append(f"{where}: bad since {e['since']!r}")
    if e.get("transform") not in (None, *TRANSFORMS):
        problems.append(f"{where}: unknown transform {e['transform']!r}")
    older = e.get("older")
    if older is not None:
        if not isinstance(older, dict) or not older.get("hip"):
            problems.append(f"{where}: older needs a hip name")
        elif older.get("transform") not in (None, *TRANSFORMS):
            problems.append(f"{where}: unknown older transform {older['transform']!r}")
        if "since" not in e:
            problems.append(f"{where}: older without since")


def declared(decls: dict, hip: str, kind: str) -> bool:
    if kind == "namespace":
        return any(k.startswith(hip + "::") for k in decls)
    return hip in decls


class Signatures:
    """The signature check: every supported function mapping's CUDA declaration (from
    cuda_signatures.json) against its HIP declaration in each verified release."""

    def __init__(self, data: Path, base: dict[str, dict]) -> None:
        path = data / gen.CUDA_SIGNATURES
        doc = load(path if path.is_file() else gen.DATA / gen.CUDA_SIGNATURES)
        self.cuda = {k: gen.cuda_decl(v) for k, v in doc["functions"].items()}
        self.base = base
        self.checked = self.explained = self.unchecked = 0

    def systems(self, entries: dict) -> dict[str, gen.TypeSystem]:
        table = {**self.base, **entries}

        def rename(tok: str) -> str:
            e = table.get(tok)
            return e["hip"] if e and "hip" in e and e.get("kind") != "function" else tok

        return gen.type_systems(rename, dict.fromkeys(table))

    def check(
        self, name: str, cuda: str, e: dict, rel: gen.Release, systems, problems: list[str]
    ) -> None:
        cdecl = self.cuda.get(cuda)
        if cdecl is None:
            self.unchecked += 1  # no CUDA 13 declaration: a legacy name or an override's
            return
        per = {rel.version: gen.release_decls(rel.version)}
        forms = {len(p) for p, _ in signatures.signatures(cdecl)}
        arity = {int(k): v for k, v in e.get("arity", {}).items()}
        for n, alt in arity.items():
            if n not in forms:
                problems.append(f"{name}: {cuda}: arity {n} -> {alt}, but no CUDA form has {n}")
                continue
            some, why = gen.signature_problem(_forms(cdecl, {n}), alt, per, systems)
            if why:
                problems.append(f"{name}: {cuda}: {n} arguments -> {alt}: {why}")
        rest = _forms(cdecl, forms - set(arity)) if arity else cdecl
        self.checked += 1
        some, why = gen.signature_problem(rest, e["hip"], per, systems)
        if why is None:
            return
        if e.get("signature"):
            self.explained += 1
            return
        what = "some CUDA forms do not compile" if some else "no CUDA form compiles"
        problems.append(
            f"{name}: {cuda} -> {e['hip']}: {what} ({why}), and no 'signature' says why"
        )


def _current_instead(family: str, cuda: str, hip: str, rel: gen.Release) -> str | None:
    """HIPIFY's HIP name for ``cuda`` where it is another, undeprecated declaration."""
    row = gen.hipify_tables(None)["tables"].get(family, {}).get(cuda, {})
    alt = row.get("hip")
    decl = gen.release_decls(rel.version).get(alt) if alt and alt != hip else None
    return alt if decl is not None and not decl.deprecated else None


def _forms(decl, arities: set[int]):
    """``decl`` restricted to its forms of these lengths."""
    sigs = [s for s in signatures.signatures(decl) if len(s[0]) in arities]
    if not sigs:
        return None
    (params, defaults), *more = sigs
    return gen.Decl("function", "", params, defaults=defaults, overloads=tuple(more))


def check_family(
    name: str,
    doc: dict,
    releases: list[gen.Release],
    problems: list[str],
    sigs: Signatures | None = None,
) -> int:
    for key in ("schema", "family", "title", "source", "verified_releases", "entries"):
        if key not in doc:
            problems.append(f"{name}: missing {key!r}")
            return 0
    if doc["schema"] != 1 or not str(doc["source"]).strip():
        problems.append(f"{name}: schema must be 1 and source non-empty")
    sets = doc.get("hip_header_sets", [])
    unknown = [s for s in sets if s not in gen.HIP_SETS]
    if unknown:
        problems.append(f"{name}: unknown hip_header_sets {unknown}")
        return 0
    checked = 0
    for cuda, e in doc["entries"].items():
        check_shape(name, cuda, e, problems)
    if doc.get("reference"):
        refs = load(gen.REFERENCE_FILE)["references"]
        if doc["reference"] not in refs:
            problems.append(f"{name}: unknown reference {doc['reference']!r}")
            return checked
        names = set(refs[doc["reference"]]["names"])
        for cuda, e in doc["entries"].items():
            if e.get("hip") and e.get("status") != "unsupported":
                checked += 1
                if e["hip"] not in names:
                    problems.append(
                        f"{name}: {cuda}: {e['hip']} not declared by "
                        f"{refs[doc['reference']]['path']}"
                    )
    systems = sigs.systems(doc["entries"] if doc.get("replaces") else {}) if sigs else None
    for rel in releases:
        if rel.version not in doc["verified_releases"]:
            continue
        decls: dict = {}
        for s in sets:
            for k, d in gen.hip_decls(rel.version, s).items():
                decls.setdefault(k, d)
        for cuda, e in doc["entries"].items():
            hip = e.get("hip")
            if not hip or e.get("status") == "unsupported":
                continue
            since = e.get("since")
            if since and vkey(since) > vkey(rel.version):
                older = e.get("older")
                if older and not declared(decls, older["hip"], e["kind"]):
                    problems.append(
                        f"{name}: {cuda}: older {older['hip']} not declared in "
                        f"ROCm {rel.version} ({rel.root_label})"
                    )
                continue
            checked += 1
            if not declared(decls, hip, e["kind"]):
                problems.append(
                    f"{name}: {cuda}: {hip} not declared in ROCm {rel.version} "
                    f"({rel.root_label}) though since={since}"
                )
                continue
            if sigs is not None and e["kind"] == "function":
                sigs.check(name, cuda, e, rel, systems, problems)
            if e.get("status") == "deprecated" and not doc.get("replaces"):
                current = _current_instead(doc["family"], cuda, hip, rel)
                if current:
                    problems.append(
                        f"{name}: {cuda}: emits {hip}, deprecated, where HIP {rel.version} "
                        f"declares {current} (HIPIFY's name for it) undeprecated"
                    )
            if cuda.endswith("_st") and e["kind"] == "type":
                d = gen.release_decls(rel.version).get(hip)
                if d is not None and d.pointer_to:
                    problems.append(
                        f"{name}: {cuda}: a struct tag mapped to {hip}, a pointer typedef "
                        f"(typedef {d.pointer_to}*)"
                    )
            elif (
                e.get("header")
                and rel.version == doc["verified_releases"][-1]
                and not (rel.root / e["header"]).is_file()
            ):
                problems.append(
                    f"{name}: {cuda}: header {e['header']} missing in ROCm {rel.version}"
                )
    return checked


def check_includes(doc: dict, releases: list[gen.Release], problems: list[str]) -> int:
    checked = 0
    for cuda, e in doc["entries"].items():
        hip, since = e.get("hip"), e.get("since")
        if e.get("status") == "unsupported":
            if hip:
                problems.append(f"includes.json: {cuda}: unsupported entry has a hip header")
            continue
        if not hip:
            problems.append(f"includes.json: {cuda}: no hip header")
            continue
        if hip in gen.UNCHECKED_HEADERS:
            continue
        component = hip.split("/", 1)[0]
        for rel in releases:
            if since and vkey(since) > vkey(rel.version):
                continue
            if not (rel.root / component).is_dir() and component not in ("hip",):
                continue  # the release does not ship that library at all
            checked += 1
            if not (rel.root / hip).is_file():
                problems.append(
                    f"includes.json: {cuda}: {hip} missing in ROCm {rel.version} ({rel.root_label})"
                )
        older = e.get("older")
        if older:
            for rel in releases:
                if (
                    since
                    and vkey(since) > vkey(rel.version)
                    and not (rel.root / older["hip"]).is_file()
                ):
                    problems.append(
                        f"includes.json: {cuda}: older {older['hip']} missing in ROCm {rel.version}"
                    )
    return checked


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--release", action="append", help="check only this release (repeatable)")
    ap.add_argument("--data", type=Path, default=gen.DATA, help="data directory")
    args = ap.parse_args(argv)
    releases = [r for r in gen.RELEASES if not args.release or r.version in args.release]
    if args.release and len(releases) != len(set(args.release)):
        print(f"check_mapping: unknown release in {args.release}", file=sys.stderr)
        return 2
    missing = [r for r in releases if not r.root.is_dir()]
    if missing:
        for r in missing:
            print(
                f"check_mapping: HIP {r.version} headers not found at {r.root} "
                "(run scripts/toolchain-rocm.sh)",
                file=sys.stderr,
            )
        return 2
    problems: list[str] = []
    owner: dict[str, str] = {}
    counts: dict[str, int] = {}
    base: dict[str, dict] = {}
    for path in sorted(args.data.glob("*.json")):
        if path.name not in META:
            doc = json.loads(path.read_text(encoding="utf-8"))
            if not doc.get("replaces"):
                for k, v in doc.get("entries", {}).items():
                    base.setdefault(k, v)
    sigs = Signatures(args.data, base)
    for path in sorted(args.data.glob("*.json")):
        try:
            doc = load(path)
        except ValueError as exc:
            problems.append(f"{path.name}: {exc}")
            continue
        if path.name == "includes.json":
            counts[path.name] = check_includes(doc, releases, problems)
            continue
        if doc.get("includes"):
            counts[path.name + " includes"] = check_includes(
                {"entries": doc["includes"]}, releases, problems
            )
        if path.name in META:
            if doc.get("schema") != 1 or not doc.get("source"):
                problems.append(f"{path.name}: schema must be 1 and source non-empty")
            continue
        counts[path.name] = check_family(path.name, doc, releases, problems, sigs)
        if doc.get("replaces"):
            continue
        for cuda in doc.get("entries", {}):
            if cuda in owner:
                problems.append(f"{path.name}: {cuda} also in {owner[cuda]}")
            owner[cuda] = path.name
    for p in problems:
        print(p)
    total = sum(counts.values())
    versions = ", ".join(r.version for r in releases)
    print(
        f"check_mapping: {total} (name, release) pairs checked against ROCm {versions}; "
        f"signatures: {sigs.checked} compared ({sigs.explained} with a 'signature' note), "
        f"{sigs.unchecked} without a CUDA {gen.CUDA_VERSION} declaration; "
        f"{len(problems)} problem(s)"
    )
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
