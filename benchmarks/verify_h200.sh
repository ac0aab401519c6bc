#!/usr/bin/env bash
# Original against port, run on an NVIDIA GPU: every non-library program of examples/cuda, the
# Rodinia programs of the corpus that take no data files, and deliberately broken ports (one per
# class: shuffle direction, event flags, memcpy kind) that must come out "differs".
#
#   bash benchmarks/verify_h200.sh prepare   # here (no GPU needed): copy, port (ROCm 6.4), build all
#   OUT=DIR bash benchmarks/verify_h200.sh run   # on the GPU machine: build what is missing, run, compare
#
# prepare needs the corpus (CORPUS, default ../shared/corpus) and the HIP NVIDIA backend headers
# (HIP_NVIDIA, default .cache/hip-nvidia, from ../shared/tools/get-hip-nvidia); it writes
# .cache/verify-h200/{src,port} (the trees that travel to the GPU machine) and bin/ beside them.
# run compares with `rocport verify` when VERIFY=rocport and the command exists, otherwise with
# the comparison below (exit code, stdout, stderr and named output files, exact after masking
# timings and addresses). Time-seeded programs run with time() fixed by LD_PRELOAD (fixtime.so).
# Full logs go to $OUT/verify_h200.log and $OUT/verify_h200.tsv; the table is printed last.
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
W=${VERIFY_WORK:-$ROOT/.cache/verify-h200}
CORPUS=${CORPUS:-$ROOT/../shared/corpus}
HN=${HIP_NVIDIA:-$ROOT/.cache/hip-nvidia}/hip-nvidia-6.0.2
OUT=${OUT:-$ROOT/out/verify-h200}
JOBS=${JOBS:-$(nproc)}
export PYTHONPATH="$ROOT/src${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
NVFLAGS=(-arch=sm_90 -cudart static -O2 -std=c++17 -w)
HIPINC=(-I"$HN/generated-include" -I"$HN/hip-include" -I"$HN/hipother-include" -I"$HN/clr-include")

# name | origin | sources (in the program's folder) | extra nvcc flags (@W@: the work folder) |
# arguments | output files | rocport port options (besides --rocm 6.4)
# origin: ex:FILE (examples/cuda), lib:FILE (examples/cuda, uses a CUDA library: left to rocport verify,
#         which reports what it needs), rodinia:DIR (corpus rodinia/cuda/DIR),
#         broken:NAME:SED (the port of NAME with SED applied to its sources; must differ, except
#         control_* rows, edits that keep the behaviour, which must come out the same)
PROGRAMS='
vector_add|ex:vector_add.cu|vector_add.cu|||
warp_reduce|ex:warp_reduce.cu|warp_reduce.cu|||
warp_reduce_keep|ex:warp_reduce.cu|warp_reduce.cu||||--warp-sync keep
streams_events|ex:streams_events.cu|streams_events.cu|||
transpose_shared|ex:transpose_shared.cu|transpose_shared.cu|||
templates|ex:templates.cu|templates.cu|||
constant_memory|ex:constant_memory.cu|constant_memory.cu|||
macros|ex:macros.cu|macros.cu|||
cooperative_groups|ex:cooperative_groups.cu|cooperative_groups.cu|-rdc=true||
driver_api|ex:driver_api.cu|driver_api.cu|-lcuda|driver_api.cubin|
gaussian|rodinia:gaussian|gaussian.cu||-s 64|
nw|rodinia:nw|needle.cu|-DTRACEBACK|1024 10|result.txt
pathfinder|rodinia:pathfinder|pathfinder.cu|-DBENCH_PRINT|10000 100 20|
backprop|rodinia:backprop|backprop_cuda.cu backprop.c facetrain.c imagenet.c||65536|
lud|rodinia:lud|cuda/lud.cu cuda/lud_kernel.cu common/common.c|-Icommon|-s 256 -v|
srad_v2|rodinia:srad/srad_v2|srad.cu|-DOUTPUT|128 128 0 31 0 31 0.5 2|
streamcluster|rodinia:streamcluster|streamcluster_cuda_cpu.cpp streamcluster_cuda.cu streamcluster_header.cu||10 20 16 4096 4096 1000 none output.txt 1|output.txt
lavaMD|rodinia:lavaMD|main.c kernel/kernel_gpu_cuda_wrapper.cu util/num/num.c util/timer/timer.c util/device/device.cu||-boxes1d 4|
hybridsort|rodinia:hybridsort|bucketsort.cu mergesort.cu main.cu|-DVERIFY -I@W@/glstub|r|
particlefilter_float|rodinia:particlefilter|ex_particle_CUDA_float_seq.cu|-use_fast_math|-x 128 -y 128 -z 10 -np 1000|
particlefilter_naive|rodinia:particlefilter|ex_particle_CUDA_naive_seq.cu|-use_fast_math|-x 128 -y 128 -z 10 -np 1000|
cublas_gemm|lib:cublas_gemm.cu|cublas_gemm.cu|||
curand_pi|lib:curand_pi.cu|curand_pi.cu|||
cufft_spectrum|lib:cufft_spectrum.cu|cufft_spectrum.cu|||
cub_reduce|lib:cub_reduce.cu|cub_reduce.cu|||
thrust_sort|lib:thrust_sort.cu|thrust_sort.cu|||
broken_shfl_up|broken:warp_reduce:s/__shfl_down(/__shfl_up(/g|warp_reduce.cu|||
broken_event_flags|broken:streams_events:s/hipEventCreate(&start)/hipEventCreateWithFlags(\&start, hipEventDisableTiming)/|streams_events.cu|||
broken_event_interprocess|broken:streams_events:s/hipEventCreateWithFlags(&done\[s\], hipEventDisableTiming)/hipEventCreateWithFlags(\&done[s], hipEventInterprocess)/|streams_events.cu|||
control_event_blocking_sync|broken:streams_events:s/hipEventCreateWithFlags(&done\[s\], hipEventDisableTiming)/hipEventCreateWithFlags(\&done[s], hipEventBlockingSync)/|streams_events.cu|||
broken_memcpy_kind|broken:vector_add:0,/hipMemcpyHostToDevice/s/hipMemcpyHostToDevice/hipMemcpyDeviceToHost/|vector_add.cu|||
broken_memcpy_kind_back|broken:vector_add:s/hipMemcpyDeviceToHost/hipMemcpyHostToDevice/g|vector_add.cu|||
broken_memcpy_kind_d2d|broken:nw:s/hipMemcpyDeviceToHost/hipMemcpyDeviceToDevice/g|needle.cu|-DTRACEBACK|1024 10|result.txt
'

field() { echo "$1" | cut -d'|' -f"$2"; }
rows() { echo "$PROGRAMS" | grep -v '^$'; }

prune() {  # prune DIR "SOURCES": drop the sources of other programs (other mains, tools) so
  # that DIR holds one program; a source that another file includes stays
  local dir=$1 keep=$2 f rel
  (cd "$dir" && find . -type f \( -name '*.cu' -o -name '*.c' -o -name '*.cpp' -o -name '*.cc' \)) |
    while IFS= read -r f; do
      rel=${f#./}
      case " $keep " in *" $rel "*) continue ;; esac
      grep -rqE "#[[:space:]]*include[[:space:]]*\"([^\"]*/)?$(basename "$rel")\"" "$dir" && continue
      rm -f "$dir/$rel"
    done
  find "$dir" -depth -type d -empty -delete
}

prepare_sources() {  # copy each original into src/NAME and port it into port/NAME
  rm -rf "$W/src" "$W/port"
  mkdir -p "$W/src" "$W/port" "$W/logs"
  rows | while IFS= read -r row; do
    local name origin
    name=$(field "$row" 1)
    origin=$(field "$row" 2)
    case $origin in
      ex:* | lib:*)
        mkdir -p "$W/src/$name"
        cp "examples/cuda/${origin#*:}" examples/cuda/device_helpers.cuh "$W/src/$name/" ;;
      rodinia:*)
        cp -r "$CORPUS/rodinia/cuda/${origin#rodinia:}" "$W/src/$name"
        prune "$W/src/$name" "$(field "$row" 3)" ;;
      broken:*) continue ;;
    esac
    # shellcheck disable=SC2046  # options are words
    python3 -m rocport port "$W/src/$name" -o "$W/port/$name" --rocm 6.4 $(field "$row" 7) >"$W/logs/$name.port.txt" 2>&1 ||
      echo "port of $name failed: $W/logs/$name.port.txt"
  done
  rows | while IFS= read -r row; do  # broken ports: a copy of a good port, one edit
    local name origin base expr f
    name=$(field "$row" 1)
    origin=$(field "$row" 2)
    [ "${origin%%:*}" = broken ] || continue
    base=${origin#broken:}
    base=${base%%:*}
    expr=${origin#broken:"$base":}
    cp -r "$W/src/$base" "$W/src/$name"
    cp -r "$W/port/$base" "$W/port/$name"
    for f in $(field "$row" 3); do
      sed -i "$expr" "$W/port/$name/$f"
      cmp -s "$W/port/$name/$f" "$W/port/$base/$f" && echo "broken port $name: '$expr' changed nothing"
    done
  done
  return 0
}

build_one() {  # build_one NAME: bin/NAME.orig and bin/NAME.port (logs/NAME.build-*.txt)
  local name=$1 row flags srcs side dir f extra
  row=$(rows | grep "^$name|")
  srcs=$(field "$row" 3)
  flags=$(field "$row" 4)
  flags=${flags//@W@/$W}
  mkdir -p "$W/bin"
  for side in orig port; do
    [ -x "$W/bin/$name.$side" ] && continue
    if [ $side = orig ]; then
      dir=$W/src/$name extra=(-include "$W/cuda13_compat.h")
    else
      dir=$W/port/$name extra=("${HIPINC[@]}" -include "$W/hip_nvidia_votes.h")
    fi
    local paths=()
    for f in $srcs; do paths+=("$dir/$f"); done
    # shellcheck disable=SC2086  # flags are words
    (cd "$dir" && nvcc "${NVFLAGS[@]}" "${extra[@]}" $flags -I. "${paths[@]}" -o "$W/bin/$name.$side") \
      >"$W/logs/$name.build-$side.txt" 2>&1 || echo "build failed: $name ($side), $W/logs/$name.build-$side.txt"
  done
  if [ "$name" = driver_api ] && [ ! -f "$W/bin/driver_api.cubin" ]; then  # the module it loads
    nvcc -arch=sm_90 -cubin -o "$W/bin/driver_api.cubin" "$W/src/driver_api/driver_api.cu" >>"$W/logs/$name.build-orig.txt" 2>&1
  fi
}

build_all() {
  mkdir -p "$W/logs"
  local stub
  if ! ldconfig -p 2>/dev/null | grep -q 'libcuda\.so '; then  # no driver here: link against a stub
    stub=$W/stub
    mkdir -p "$stub"
    [ -f "$stub/libcuda.so" ] || gcc -shared -fPIC -Wl,-soname,libcuda.so.1 -o "$stub/libcuda.so" "$HN/stub.c"
    export LIBRARY_PATH="$stub${LIBRARY_PATH:+:$LIBRARY_PATH}"
  fi
  # CUDA 13 removed cudaThreadSynchronize, which the Rodinia originals call; its successor is
  # cudaDeviceSynchronize (the port already says hipDeviceSynchronize)
  printf '%s\n' '#define cudaThreadSynchronize cudaDeviceSynchronize' >"$W/cuda13_compat.h"
  # A gap of the NVIDIA backend, not of the port: HIP's mask-free __ballot reaches CUDA's legacy
  # vote, which ptxas rejects on sm_70+; on 32 lanes it means the full-mask __ballot_sync. (__any
  # and __all are left alone: libcu++ has a struct __any that such a macro would break.)
  printf '%s\n' '#ifdef __CUDACC__' '#include <cuda_runtime.h>' \
    '#define __ballot(p) __ballot_sync(0xffffffffu, (p))' '#endif' >"$W/hip_nvidia_votes.h"
  # hybridsort includes OpenGL's headers and calls nothing of them: empty ones stand in
  mkdir -p "$W/glstub/GL" && : >"$W/glstub/GL/glew.h" && : >"$W/glstub/GL/glut.h"
  [ -f "$W/fixtime.so" ] || printf '%s\n' '#include <time.h>' \
    'time_t time(time_t *t) { if (t) *t = 1700000000; return 1700000000; }' |
    gcc -shared -fPIC -x c -o "$W/fixtime.so" -
  export -f build_one field rows verify_one
  export W PROGRAMS HN
  export NVFLAGS_S="${NVFLAGS[*]}" HIPINC_S="${HIPINC[*]}"
  rows | grep -v '|lib:' | cut -d'|' -f1 | xargs -P "$JOBS" -I{} bash -c \
    'read -ra NVFLAGS <<<"$NVFLAGS_S"; read -ra HIPINC <<<"$HIPINC_S"; build_one {}'
}

run_side() {  # run_side NAME SIDE: runs bin/NAME.SIDE (SIDE orig, orig2 or port) in a fresh folder
  local name=$1 side=$2 row args outs d f
  row=$(rows | grep "^$name|")
  args=$(field "$row" 5)
  outs=$(field "$row" 6)
  d=$W/run/$name.$side
  rm -rf "$d"
  mkdir -p "$d/cwd"
  [ "$name" = driver_api ] && cp "$W/bin/driver_api.cubin" "$d/cwd/"
  # shellcheck disable=SC2086
  (cd "$d/cwd" && LD_PRELOAD=$W/fixtime.so timeout 120 "$W/bin/$name.${side%2}" $args >"$d/stdout" 2>"$d/stderr")
  echo $? >"$d/exit"
  for f in $outs; do
    if [ -f "$d/cwd/$f" ]; then cp "$d/cwd/$f" "$d/file.$f"; else echo "(missing)" >"$d/file.$f"; fi
  done
}

compare_one() {  # compare_one NAME: "same" or "differs<TAB>first difference" (python3)
  python3 - "$W/run/$1.orig" "$W/run/$1.orig2" "$W/run/$1.port" "$W" <<'PY'
import pathlib, re, sys
orig, orig2, port, work = (pathlib.Path(a) for a in sys.argv[1:])
RULES = [  # what legitimately changes between runs and between the two builds
    (re.escape(str(work)) + r"/(src|port)/[^/\s:']+", "<dir>"),
    (r"0x[0-9a-fA-F]{6,}", "0x<addr>"),
    (r"[-+]?\d+\.?\d*(?:[eE][-+]?\d+)?\s*(?:ms|us|ns|s|sec|seconds|msec|GB/s|GFLOP/s)\b", "<time>"),
    (r"(?i)((?:time|took|elapsed|execution)[^0-9\n]*)[-+]?\d+\.?\d*(?:[eE][-+]?\d+)?", r"\1<time>"),
]
def lines(folder, what):
    text = (folder / what).read_text(errors="replace")
    for pattern, repl in RULES:
        text = re.sub(pattern, repl, text)
    return text.splitlines()
whats = ["exit", "stdout", "stderr"] + sorted(p.name for p in orig.glob("file.*"))
masked = 0
for what in whats:
    a, a2, b = lines(orig, what), lines(orig2, what), lines(port, what)
    unstable = {i for i in range(min(len(a), len(a2))) if a[i] != a2[i]} if len(a) == len(a2) else set()
    masked += len(unstable)
    for i in range(max(len(a), len(b))):
        if i in unstable:
            continue
        x = a[i] if i < len(a) else "(end)"
        y = b[i] if i < len(b) else "(end)"
        if x != y:
            print(f"differs\t{what}:{i + 1}: {x[:70]!r} vs {y[:70]!r}")
            sys.exit()
print("same\t" + (f"({masked} line(s) that change between two runs of the original masked)" if masked else ""))
PY
}

# timings printed without a unit ("TOOK: 0.000009", "Time consumed(ms): 0.6"), masked for rocport verify
TIME_MASK='(?i)(time|took|elapsed|execution)[^0-9\n]*[-+]?[0-9]+\.?[0-9]*(e[-+]?[0-9]+)?'
export TIME_MASK

verify_one() {  # verify_one NAME: rocport verify on src/NAME and port/NAME -> $OUT/verify/NAME.json
  local name=$1 row args outs flags f opts=()
  row=$(rows | grep "^$name|")
  flags=$(field "$row" 4)
  args=$(field "$row" 5)
  outs=$(field "$row" 6)
  for f in $outs; do opts+=(--output-file "$f"); done
  local a=$W/src/$name b=$W/port/$name srcs
  srcs=$(field "$row" 3)
  # one source file (that may include others): verify the file; several: the folder
  [ "$srcs" = "${srcs%% *}" ] && a=$a/$srcs b=$b/$srcs
  [ "$name" = driver_api ] && opts+=(--inputs "$W/bin/driver_api.cubin")
  # the build flags of the program's Makefile and the CUDA 13 shim go to both builds (--flags);
  # -I folders are the original's (they hold headers without CUDA)
  flags=$(echo "$flags" | sed -E "s#-I([^/@])#-I$W/src/$name/\1#g; s#@W@#$W#g")
  timeout 300 python3 -m rocport verify "$a" "$b" --nvidia --run "$args" "${opts[@]}" \
    --flags "-include $W/cuda13_compat.h $flags" \
    --env "LD_PRELOAD=$W/fixtime.so" --mask "$TIME_MASK" --hip-nvidia "$(dirname "$HN")" --json "$W/verify/$name.json" \
    >"$W/verify/$name.txt" 2>&1
  echo "exit $?" >>"$W/verify/$name.txt"
}

verify_summary() {  # verify_summary NAME: "status<TAB>reason or first difference" from its JSON
  python3 - "$W/verify/$1.json" <<'PY'
import json, sys
try:
    p = json.load(open(sys.argv[1]))["programs"]
except (OSError, ValueError, KeyError):
    print("no report\t"); sys.exit()
parts = []
for prog in p:
    d = prog.get("difference")
    where = d and (f"{d['what']}:{d['line']}" if d.get("line") is not None else d["what"])
    why = f"{where}: {d['reference'][:60]!r} vs {d['ported'][:60]!r}" if d else (prog.get("reason") or "")
    parts.append((prog["status"], why[:200]))
print(parts[0][0] if len(parts) == 1 else "/".join(s for s, _ in parts), "\t", "; ".join(w for _, w in parts if w), sep="")
PY
}

run_all() {  # both comparisons for every program; table last, logs and reports under $OUT
  mkdir -p "$OUT"
  local log=$OUT/verify_h200.log tsv=$OUT/verify_h200.tsv name res which t0=$SECONDS
  : >"$log"
  { date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1; nvcc --version | tail -1; } | tee -a "$log"
  [ -d "$W/port" ] || { echo "no $W/port: run prepare first (and carry .cache/verify-h200/src and port)"; exit 2; }
  build_all >>"$log" 2>&1
  echo "build: $((SECONDS - t0)) s" | tee -a "$log"
  t0=$SECONDS
  rm -rf "$W/verify" && mkdir -p "$W/verify"
  if [ "${VERIFY:-rocport}" = rocport ] && python3 -m rocport verify --help >/dev/null 2>&1; then
    rows | cut -d'|' -f1 | xargs -P "$JOBS" -I{} bash -c 'verify_one {}'
    echo "rocport verify: $((SECONDS - t0)) s" | tee -a "$log"
  else
    echo "rocport verify: not run (VERIFY=${VERIFY:-rocport}, or the command is missing)" | tee -a "$log"
  fi
  t0=$SECONDS
  printf 'program\tscript\trocport verify\tfirst difference or reason\n' >"$tsv"
  rows | while IFS= read -r row; do
    name=$(field "$row" 1)
    if [ "$(field "$row" 2 | cut -d: -f1)" = lib ]; then
      res="not covered"$'\t'"a CUDA library program (no NVIDIA build of its HIP library here)"
    elif [ ! -x "$W/bin/$name.orig" ] || [ ! -x "$W/bin/$name.port" ]; then
      which=orig
      [ -x "$W/bin/$name.orig" ] && which=port
      res="could not build"$'\t'"$which: $(grep -m1 -E 'error' "$W/logs/$name.build-$which.txt" | sed "s#$W/##g" | cut -c1-160)"
    else
      run_side "$name" orig
      run_side "$name" orig2
      run_side "$name" port
      if [ "$(cat "$W/run/$name.orig/exit")" = 124 ]; then
        res="could not run"$'\t'"original timed out"
      else
        res=$(compare_one "$name")
      fi
      {
        echo "=== $name: $(field "$row" 5) -> ${res%%$'\t'*}"
        for side in orig port; do
          echo "--- $side exit $(cat "$W/run/$name.$side/exit")"
          head -c 3000 "$W/run/$name.$side/stdout"
          echo "--- $side stderr"
          head -c 1500 "$W/run/$name.$side/stderr"
        done
      } >>"$log"
    fi
    local v
    v=$(verify_summary "$name")
    # the first difference: rocport verify's where it has one, else the script's
    local why=${v#*$'\t'}
    [ -n "$why" ] || why=${res#*$'\t'}
    printf '%s\t%s\t%s\t%s\n' "$name" "${res%%$'\t'*}" "${v%%$'\t'*}" "$why" >>"$tsv"
  done
  echo "runs: $((SECONDS - t0)) s" | tee -a "$log"
  cat "$W"/logs/*.build-*.txt >"$OUT/verify_h200_build.log" 2>/dev/null
  tar -czf "$OUT/verify_h200_reports.tar.gz" -C "$W" verify run 2>/dev/null
  echo
  column -t -s $'\t' "$tsv" 2>/dev/null || cat "$tsv"
}

case ${1:-} in
  prepare) prepare_sources && build_all ;;
  build) build_all ;;
  run) run_all ;;
  *) echo "usage: $0 prepare|build|run" >&2; exit 2 ;;
esac
