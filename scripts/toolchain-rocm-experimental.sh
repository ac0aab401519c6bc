#!/usr/bin/env bash
# A HIP 7.2 toolchain root for tests: Debian sid (debootstrap) with the ROCm 7.2.4 packages of
# Debian experimental (hipcc 7.2.4, clang 22, HIP/hipBLAS/hipFFT/rocThrust/hipCUB/hipRAND headers).
# Needs root; about 4 GB. Usage: scripts/toolchain-rocm-experimental.sh [ROOT] (default .toolchains/exp72).
# Run its hipcc with: ROCPORT_SID_ROOT=ROOT scripts/sid-hipcc ARGS...
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
root="${1:-$here/.toolchains/exp72}"
mirror="${ROCPORT_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
[ "$(id -u)" = 0 ] || { echo "toolchain-rocm-experimental: run as root" >&2; exit 2; }
[ -f "$root/.rocport-ready" ] && { echo "toolchain-rocm-experimental: $root is ready"; exit 0; }
rm -rf "$root"
debootstrap --variant=minbase sid "$root" "$mirror" >/dev/null
cp /etc/apt/apt.conf.d/* "$root/etc/apt/apt.conf.d/" 2>/dev/null || true
echo 'Acquire::Check-Valid-Until "false";' > "$root/etc/apt/apt.conf.d/99rocport-valid"
echo "deb $mirror experimental main" > "$root/etc/apt/sources.list.d/experimental.list"
mount -t proc proc "$root/proc"
trap 'umount "$root/proc"' EXIT
chroot "$root" apt-get update -qq
chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
  -t experimental hipcc libamdhip64-dev libhipblas-dev libhipfft-dev librocthrust-dev \
  libhipcub-dev libhiprand-dev >/dev/null
touch "$root/.rocport-ready"
echo "toolchain-rocm-experimental: $root ready ($(chroot "$root" /usr/bin/hipcc --version 2>/dev/null | grep -m1 -i 'HIP version' || echo hipcc))"
