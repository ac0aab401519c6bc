"""Check rocport's Triton kernels against torch on the CPU (run with ``TRITON_INTERPRET=1``).

Prints one JSON object: kernel name -> {"ok", "max_error", "sizes"}. Sizes include ones
that are not a multiple of any tile, so the masked tails run too.
"""

from __future__ import annotations

import json
import os
import sys

import torch


def main() -> int:
    if os.environ.get("TRITON_INTERPRET") != "1":
        print("run with TRITON_INTERPRET=1", file=sys.stderr)
        return 2
    from rocport.bench import _triton_impl as k

    gen = torch.Generator().manual_seed(0)
    report: dict[str, dict] = {}
    tile = k.ROWS * k.VEC
    sizes = [1, 7, k.NAIVE_BLOCK + 3, tile, 2 * tile + 5]
    for name, fn in (("add_naive", k.add_naive), ("add_vectorized", k.add_vectorized)):
        worst = 0.0
        for n in sizes:
            x, y = torch.randn(n, generator=gen), torch.randn(n, generator=gen)
            out = torch.full((n,), float("nan"))
            fn(x, y, out)
            worst = max(worst, float((out - (x + y)).abs().max()))
        report[name] = {"ok": worst == 0.0, "max_error": worst, "sizes": sizes}
    shapes = [(64, 64, 64), (48, 80, 40), (33, 65, 70)]
    for dtype, tol in ((torch.float16, 1e-2),):
        worst = 0.0
        for m, n, kk in shapes:
            a = torch.randn(m, kk, generator=gen).to(dtype)
            b = torch.randn(kk, n, generator=gen).to(dtype)
            out = torch.full((m, n), float("nan"), dtype=dtype)
            k.matmul(a, b, out)
            ref = a.double() @ b.double()
            worst = max(
                worst, float(torch.linalg.norm(out.double() - ref) / torch.linalg.norm(ref))
            )
        report[f"matmul_{str(dtype).removeprefix('torch.')}"] = {
            "ok": worst <= tol,
            "max_error": worst,
            "sizes": [list(s) for s in shapes],
        }
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
