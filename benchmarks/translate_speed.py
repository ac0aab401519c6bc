"""Single-core speed of the translation engine (``rocport.port.translator.translate``).

Two corpora, read once into memory and translated file by file in this process:

- ``examples``: the project's CUDA samples (examples/cuda), repeated to about 4 MB. Host code
  wrapped around API calls: about one CUDA reference every 90 bytes, the dense end.
- ``cub``: CUB's own sources as shipped with the CUDA toolkit (``include/cccl/cub``, about
  4 MB of templated device C++ with comments): real-world CUDA C++.

Prints MB/s (input bytes per CPU second of this process, best of three runs; CPU time, not
wall time, so that other work on a shared machine does not count) and references per
second. Run: ``python benchmarks/translate_speed.py [--cuda-include /usr/local/cuda/include]``.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from rocport.port.mapping import load_mapping
from rocport.port.model import PortOptions
from rocport.port.translator import translate

ROOT = Path(__file__).resolve().parents[1]


def corpora(cuda_include: Path) -> dict[str, list[str]]:
    samples = [p.read_text() for p in sorted((ROOT / "examples" / "cuda").glob("*.cu*"))]
    size = sum(map(len, samples))
    found = {"examples": samples * max(1, 4_000_000 // size)}
    cub = sorted((cuda_include / "cccl" / "cub").rglob("*.cuh"))
    if cub:
        found["cub"] = [p.read_text(errors="replace") for p in cub]
    return found


def measure(texts: list[str], options: PortOptions) -> tuple[float, int]:
    mapping = load_mapping(rocm=options.rocm)
    translate("cudaFree(0);", path="warm.cu", mapping=mapping, options=options)  # compile once
    best = float("inf")
    refs = 0
    for _ in range(3):
        start = time.process_time()
        refs = 0
        for text in texts:
            refs += len(translate(text, path="x.cu", mapping=mapping, options=options).references)
        best = min(best, time.process_time() - start)
    return best, refs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cuda-include", type=Path, default=Path("/usr/local/cuda/include"))
    args = parser.parse_args()
    header = ("corpus", "launch", "MB", "refs", "CPU s", "MB/s", "refs/s")
    print("{:10} {:6} {:>6} {:>8} {:>8} {:>7} {:>9}".format(*header))
    for name, texts in corpora(args.cuda_include).items():
        size = sum(len(t.encode()) for t in texts) / 1e6
        for launch in ("keep", "ggl"):
            seconds, refs = measure(texts, PortOptions(rocm="6.4", launch=launch))
            print(
                f"{name:10} {launch:6} {size:6.1f} {refs:8d} {seconds:8.3f} "
                f"{size / seconds:7.1f} {refs / seconds:9.0f}"
            )


if __name__ == "__main__":
    main()
