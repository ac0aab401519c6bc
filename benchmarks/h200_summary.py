"""Print the short summary table of an h200_suite.sh run (reads the JSON files under OUT)."""

from __future__ import annotations

import json
import sys
from pathlib import Path


def _load(path: Path):
    try:
        return json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return None


def main(out: Path) -> None:
    rows: list[tuple[str, str]] = []
    bench = _load(out / "bench.json")
    kernels = _load(out / "bench_kernels.json")
    if bench and kernels:  # one table: the kernel run's results and checks first
        bench = {
            **bench,
            "results": kernels["results"] + bench["results"],
            "checks": kernels["checks"] + bench["checks"],
        }
    bench = bench or kernels
    if bench:
        dev = bench["metadata"]["device"]
        rows.append(
            (
                "device",
                f"{dev['name']} ({dev['backend']} {dev['backend_version']}, "
                f"driver {dev['driver']})",
            )
        )
        by_id = {r["id"]: r for r in bench["results"]}
        for rid in (
            "copy/torch/fp32",
            "vector_add/naive/fp32",
            "vector_add/vectorized/fp32",
            "vector_add/library/fp32",
            "gemm/torch/fp32/8192x8192x8192",
            "gemm/torch/tf32/8192x8192x8192",
            "gemm/torch/bf16/8192x8192x8192",
            "gemm/triton/bf16/8192x8192x8192",
        ):
            if rid in by_id:
                r = by_id[rid]
                pct = (
                    f", {r['percent_of_peak']:.0f}% of peak"
                    if r["percent_of_peak"] is not None
                    else ""
                )
                rows.append((rid, f"{r['value']:,.1f} {r['unit']}{pct}"))
        for c in bench["checks"]:
            verdict = {True: "pass", False: "FAIL", None: "info"}[c["passed"]]
            rows.append((c["name"], f"{c['value']:.3f} ({verdict})"))
        indep = _load(out / "independent.json")
        if indep:
            for r in indep["resnet"]:
                if r["id"] in by_id:
                    ratio = by_id[r["id"]]["value"] / r["images_per_s"]
                    rows.append(
                        (
                            f"rocport / independent loop: {r['id']}",
                            f"{ratio:.4f} ({by_id[r['id']]['value']:,.0f} vs "
                            f"{r['images_per_s']:,.0f} img/s; "
                            f"{'pass' if abs(ratio - 1) <= 0.03 else 'FAIL'} at 3%)",
                        )
                    )
            n = indep["matmul_bf16"]["n"]
            for impl in ("torch", "triton"):
                rid = f"gemm/{impl}/bf16/{n}x{n}x{n}"
                if rid in by_id:
                    ratio = by_id[rid]["value"] / indep["matmul_bf16"]["tflops"]
                    rows.append(
                        (
                            f"{rid} / plain torch.matmul loop",
                            f"{ratio:.3f} ({indep['matmul_bf16']['tflops']:.0f} TFLOP/s plain; "
                            f"{'pass' if ratio >= 0.8 else 'FAIL'} at 80%)",
                        )
                    )
    amp = _load(out / "amp_resnet50.json")
    if amp:
        for name, r in amp["precisions"].items():
            diff = r["loss_max_rel_diff"]
            rows.append(
                (
                    f"amp-check resnet50 {name}",
                    f"{r['verdict']}, skipped {len(r['skipped_steps'])}, loss vs fp32 "
                    f"{'—' if diff is None else format(diff, '.2%')}",
                )
            )
    for tool in ("torch", "ncu"):
        prof = _load(out / f"profile_{tool}.json")
        if prof and prof["kernels"]:
            k = prof["kernels"][0]
            extra = f", {k['bandwidth_gbs']:.0f} GB/s" if k.get("bandwidth_gbs") else ""
            rows.append(
                (
                    f"profile {tool}: top kernel",
                    f"{k['name'][:60]} {k['total_ns'] / 1e6:.3f} ms "
                    f"({100 * (k['share'] or 0):.1f}%){extra}",
                )
            )
    width = max((len(a) for a, _ in rows), default=10)
    print("\n".join(f"{a:<{width}}  {b}" for a, b in rows))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
