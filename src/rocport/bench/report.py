"""A Markdown summary of one results file."""

from __future__ import annotations

from typing import Any

from rocport.bench import headline


def _fmt(value: float | None, spec: str = ",.4g") -> str:
    return "—" if value is None else format(value, spec)


def markdown(document: dict[str, Any]) -> str:
    """Device and software, each result with its spread and % of peak, checks, skips."""
    meta = document["metadata"]
    dev, sw = meta["device"], meta["software"]
    lines = [
        f"# rocport bench: {dev['name']}",
        "",
        f"- device: `{dev['device']}` ({dev['backend']} {dev.get('backend_version') or ''}, "
        f"arch {dev.get('arch') or '—'}, driver {dev.get('driver') or '—'}, "
        f"{dev.get('world_size', 1)} process(es))",
        f"- peak table row: {dev.get('spec_key') or 'none (no % of peak)'}",
        "- software: " + ", ".join(f"{k} {v}" for k, v in sw.items() if v),
        "- settings: warm-up "
        + f"{meta['settings'].get('warmup', '—')} / {meta['settings'].get('resnet_warmup', '—')} "
        + "(kernels / ResNet steps), repeats "
        + f"{meta['settings'].get('repeats', '—')} / {meta['settings'].get('resnet_repeats', '—')}",
        f"- created: {document['created']}",
        "",
        "## Results",
        "",
        "| result | implementation | value | unit | median ms [min–max] | repeats | % of peak |",
        "| --- | --- | ---: | --- | --- | ---: | ---: |",
    ]
    for r in document["results"]:
        t = r["time"]
        spread = f"{t['median_ms']:.4g} [{t['min_ms']:.4g}–{t['max_ms']:.4g}]" if t else "—"
        lines.append(
            f"| `{r['id']}` | {r['implementation']} | {_fmt(r['value'])} | {r['unit']} "
            f"| {spread} | "
            f"{t['repeats'] if t else '—'} | {_fmt(r['percent_of_peak'], '.1f')} |"
        )
    for mode in ("inference", "training"):
        rows = headline.rows(document["results"], mode)
        if not rows:
            continue
        lines += [
            "",
            f"## ResNet {mode}: against the guide's loop as written",
            "",
            "| configuration | result | images/s | × guide loop |",
            "| --- | --- | ---: | ---: |",
        ]
        lines += [
            f"| {row.label} | `{row.result['id']}` | {_fmt(row.result['value'], ',.0f')} "
            f"| {_fmt(row.ratio, '.2f')} |"
            for row in rows
        ]
    if document["checks"]:
        lines += [
            "",
            "## Ratios measured in this run",
            "",
            "| check | value | bounds | verdict |",
            "| --- | ---: | --- | --- |",
        ]
        for c in document["checks"]:
            bounds = (
                " ".join(
                    b
                    for b in (
                        f"≥ {c['minimum']:g}" if c["minimum"] is not None else "",
                        f"≤ {c['maximum']:g}" if c["maximum"] is not None else "",
                    )
                    if b
                )
                or "—"
            )
            verdict = {True: "pass", False: "**FAIL**", None: "info"}[c["passed"]]
            lines.append(f"| {c['name']} | {c['value']:.3f} | {bounds} | {verdict} |")
    if document["skipped"]:
        lines += ["", "## Not measured", ""]
        lines += [f"- `{s['id']}`: {s['reason']}" for s in document["skipped"]]
    return "\n".join(lines) + "\n"
