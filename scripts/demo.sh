#!/usr/bin/env bash
# The main job on the bundled example, on a fresh Debian 12 machine: install rocport and the HIP
# toolchains, port examples/cuda to HIP for ROCm 6.4 and 5.2, compile every ported file for AMD
# GPUs with the matching hipcc, and scan the result for portability hazards.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
python3 -m pip install -q -e .
bash scripts/toolchain-rocm.sh all
out="${1:-out/demo}"
rm -rf "$out"
for rocm in 6.4 5.2; do
  echo; echo "== rocport port examples/cuda --rocm $rocm"
  rocport port examples/cuda -o "$out/rocm-$rocm" --rocm "$rocm" --json "$out/port-$rocm.json"
done
echo; echo "== rocport check (HIP 6.4, gfx90a + gfx942)"
rocport check "$out/rocm-6.4" --rocm 6.4 --offload-arch gfx90a,gfx942 --json "$out/check-6.4.json"
echo; echo "== rocport check (HIP 5.2, gfx90a)"
rocport check "$out/rocm-5.2" --rocm 5.2 --offload-arch gfx90a --json "$out/check-5.2.json" || true
echo; echo "== rocport scan (what the rename cannot fix)"
rocport scan "$out/rocm-6.4" --fail-on error
