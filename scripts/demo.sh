#!/usr/bin/env bash
# The main job on the bundled example, on a fresh Debian 12 machine: install rocport and the HIP
# toolchains, port examples/cuda to HIP for ROCm 6.4 and 5.2, compile every ported file for AMD
# GPUs with the matching hipcc, scan the result for portability hazards, and end with a summary.
#
#   bash scripts/demo.sh [OUT]      # OUT defaults to out/demo; an earlier demo output is replaced
#
# Exit status 0 when every step ends as documented (ROCm 5.2 lacks libraries and a few APIs: the
# summary names each such gap), 1 when an outcome is unexpected, 2 for bad use.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
out="${1:-out/demo}"
if [ -e "$out" ] && [ ! -f "$out/.rocport-demo" ]; then
  echo "demo.sh: $out exists and is not an earlier demo output; name another folder" >&2
  exit 2
fi
python3 -m pip install -q -e .
bash scripts/toolchain-rocm.sh all
rm -rf "$out"
mkdir -p "$out"
: >"$out/.rocport-demo"

failed=()
step() {  # step NAME EXPECTED_CODES CMD...: run CMD, note it when its exit code is not expected
  local name=$1 expected=$2 rc=0
  shift 2
  echo; echo "== $*"
  "$@" || rc=$?
  case " $expected " in
    *" $rc "*) ;;
    *) failed+=("$name exited $rc"); echo "demo.sh: $name exited $rc" >&2 ;;
  esac
}

for rocm in 6.4 5.2; do
  step "port $rocm" 0 rocport port examples/cuda -o "$out/rocm-$rocm" --rocm "$rocm" \
    --json "$out/port-$rocm.json"
done
# check exits 1 when a unit does not compile: the summary decides whether that was expected
step "check 6.4" "0 1" rocport check "$out/rocm-6.4" --rocm 6.4 --offload-arch gfx90a,gfx942 \
  --json "$out/check-6.4.json"
# HIP 5.2's clang 15 predates gfx942, so that release is compiled for gfx90a only
step "check 5.2" "0 1" rocport check "$out/rocm-5.2" --rocm 5.2 --offload-arch gfx90a \
  --json "$out/check-5.2.json"
# scan exits 1 when it finds hazards, which the samples hold on purpose
step "scan" "0 1" rocport scan "$out/rocm-6.4" --fail-on error
step "scan json" "0 1" rocport scan "$out/rocm-6.4" --format json -o "$out/scan.json"

rc=0
python3 scripts/demo_summary.py "$out" --release 6.4 --release 5.2 --gaps-allowed 5.2 || rc=$?
if [ ${#failed[@]} -gt 0 ]; then
  printf 'demo.sh: step failed: %s\n' "${failed[@]}" >&2
  rc=1
fi
exit "$rc"
