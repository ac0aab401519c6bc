#!/usr/bin/env bash
# Set up the HIP toolchains that rocport's tests and `rocport check` use. Idempotent and cached.
#
#   scripts/toolchain-rocm.sh 5.2   Debian 12's hipcc (HIP 5.2.3, clang 15) and the library headers it has,
#                                   plus Debian trixie's hipBLAS 5.5 headers under .toolchains/hipblas-5.5
#                                   (hipBLAS before 2.0, for the release tests; Debian 12 has no hipBLAS)
#   scripts/toolchain-rocm.sh 6.4   a Debian sid root under .toolchains/sid with hipcc 7.0 / HIP 6.4,
#                                   clang 21 and the hipBLAS, hipFFT, hipSOLVER, hipCUB, hipSPARSE,
#                                   hipRAND, rocThrust, MIOpen and rocTX (roctracer/roctx.h, libroctx64) headers
#                                   (debootstrap, no change to apt sources)
#   scripts/toolchain-rocm.sh 7.2   a Debian sid root under .toolchains/exp72 with Debian experimental's
#                                   ROCm 7.2.4 (hipcc 7.2.4, clang 22; scripts/toolchain-rocm-experimental.sh)
#   scripts/toolchain-rocm.sh all   5.2 and 6.4 (what the demo uses; CI adds 7.2)
# (sid's librccl-dev is still 5.4 and conflicts with HIP 6.4, so RCCL is left out.)
#
# Why a sid root: Debian 12 has no hipBLAS/hipFFT/hipSOLVER/hipCUB/MIOpen, and the 6.4 headers do not
# work with Debian 12's clang 15 (`__builtin_amdgcn_ballot_w64` undeclared), so 6.4 runs with its own clang.
# Run hipcc in the root with scripts/sid-hipcc (it mounts /proc, which hipcc needs).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
root="${ROCPORT_SID_ROOT:-$here/.toolchains/sid}"
mirror="${ROCPORT_DEBIAN_MIRROR:-http://deb.debian.org/debian}"

sid_packages=(hipcc libamdhip64-dev libhipblas-dev libhipfft-dev libhipsolver-dev libhipcub-dev
              libhipsparse-dev libhiprand-dev libmiopen-dev librocblas-dev libhipblaslt-dev
              librocprim-dev librocthrust-dev libroctx-dev cmake make)
deb12_packages=(hipcc libhipsparse-dev libhiprand-dev librocrand-dev librocprim-dev librocsparse-dev)

need_root() { [ "$(id -u)" = 0 ] || { echo "toolchain-rocm: run as root (apt-get, debootstrap)" >&2; exit 2; }; }

setup_52() {
  if command -v hipcc >/dev/null && [ -f /usr/include/hipsparse/hipsparse.h ] && [ -f /usr/include/hiprand/hiprand.h ] \
     && [ -f /usr/include/rocprim/rocprim.hpp ]; then
    echo "rocm 5.2: ready ($(command -v hipcc))"; return
  fi
  need_root
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${deb12_packages[@]}" >/dev/null
  echo "rocm 5.2: installed ($(command -v hipcc))"
}

# hipBLAS 5.5 headers (libhipblas-dev from Debian trixie, unpacked, not installed): the
# hipblasDatatype_t interface that ports for ROCm < 6.0 compile against with Debian 12's hipcc.
hipblas5="${ROCPORT_HIPBLAS5_ROOT:-$here/.toolchains/hipblas-5.5}"
setup_hipblas5() {
  [ -f "$hipblas5/usr/include/hipblas/hipblas.h" ] && { echo "hipblas 5.5: ready ($hipblas5)"; return; }
  local apt tmp
  apt="$(mktemp -d)"; tmp="$hipblas5.tmp"
  mkdir -p "$apt/lists/partial" "$apt/archives/partial"
  echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror trixie main" > "$apt/sources.list"
  local opts=(-o "Dir::Etc::sourcelist=$apt/sources.list" -o Dir::Etc::sourceparts=- -o "Dir::State::lists=$apt/lists"
              -o "Dir::Cache=$apt" -o Dir::State::status=/dev/null -o Acquire::Check-Valid-Until=false)
  apt-get "${opts[@]}" update -qq
  (cd "$apt" && apt-get "${opts[@]}" download -qq libhipblas-dev=5.5.1-4 2>/dev/null)
  rm -rf "$tmp"; mkdir -p "$tmp"
  dpkg-deb -x "$apt"/libhipblas-dev_5.5.1-4_amd64.deb "$tmp"
  rm -rf "$hipblas5"; mv "$tmp" "$hipblas5"; rm -rf "$apt"
  echo "hipblas 5.5: unpacked ($hipblas5)"
}

# The ready marker holds the package list, so that a changed list installs again.
sid_manifest() { printf '%s\n' "${sid_packages[@]}"; }

setup_64() {
  if [ -f "$root/.rocport-ready" ] && [ "$(cat "$root/.rocport-ready")" = "$(sid_manifest)" ]; then
    echo "rocm 6.4: ready ($root)"; return
  fi
  need_root
  command -v debootstrap >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
  mkdir -p "$(dirname "$root")"
  if [ ! -x "$root/usr/bin/apt-get" ]; then
    rm -rf "$root"
    debootstrap --variant=minbase sid "$root" "$mirror" >/dev/null
  fi
  # The mirror may be a dated snapshot: accept its Release files as they are.
  echo 'Acquire::Check-Valid-Until "false";' > "$root/etc/apt/apt.conf.d/99rocport"
  chroot "$root" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive chroot "$root" apt-get install -y -qq --no-install-recommends \
    "${sid_packages[@]}" >/dev/null
  sid_manifest > "$root/.rocport-ready"
  echo "rocm 6.4: installed ($root)"
}

case "${1:-all}" in
  5.2) setup_52; setup_hipblas5 ;;
  6.4) setup_64 ;;
  7.2) need_root; bash "$here/scripts/toolchain-rocm-experimental.sh" "${ROCPORT_EXP_ROOT:-$here/.toolchains/exp72}" ;;
  all) setup_52; setup_hipblas5; setup_64 ;;
  *) echo "usage: $0 [5.2|6.4|7.2|all]" >&2; exit 2 ;;
esac
