#!/usr/bin/env bash
# The whole rocport GPU validation in one command (written for one lent NVIDIA H200; the
# same commands run on ROCm builds of PyTorch).
#
#   OUT=/some/dir bash benchmarks/h200_suite.sh            # full sizes on a GPU
#   OUT=/tmp/x SUITE_PRESET=tiny bash benchmarks/h200_suite.sh  # CPU dry run, tiny sizes
#
# Writes under $OUT: bench.json (+ .md; the ResNet headline), bench_kernels.json, independent.json, amp_resnet50.json,
# profile_torch.json, profile_ncu.json, doctor.json, suite.log; prints a summary last.
# Each stage has its own time limit and a failure does not stop the others.
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-out/h200}
mkdir -p "$OUT"
export PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
# NVLink multicast stays off for anything that touches NCCL
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
PY=${PYTHON:-python3}
PRESET=${SUITE_PRESET:-full}
LOG="$OUT/suite.log"
: >"$LOG"
SCRATCH=$(mktemp -d)

stage() {  # stage NAME SECONDS CMD...   (SUITE_SKIP="amp-check doctor" leaves stages out)
  local name=$1 limit=$2; shift 2
  case " ${SUITE_SKIP:-} " in *" $name "*) echo "== $name: skipped (SUITE_SKIP)" | tee -a "$LOG"; return 0 ;; esac
  local t0=$SECONDS
  echo "== $name: $*" >>"$LOG"
  timeout --kill-after=10 "$limit" "$@" >>"$LOG" 2>&1
  local rc=$?
  echo "== $name: exit $rc after $((SECONDS - t0)) s" | tee -a "$LOG"
  return $rc
}

{ nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv 2>/dev/null || true
  "$PY" -c 'import torch, triton; print("torch", torch.__version__, "cuda", torch.version.cuda, "hip", torch.version.hip, "triton", triton.__version__)'
} >>"$LOG" 2>&1

if [ "$PRESET" = tiny ]; then
  KERNEL_ARGS=(--preset tiny --device cpu)
  RESNET_ARGS=(--preset tiny --device cpu --precisions fp32,bf16 --memory-formats channels_last --graphs)
  IND_ARGS=(--steps 2 --warmup 1 --matmul-n 256)
  AMP_ARGS=(--device cpu --model resnet18 --steps 3 --batch 2 --input-shape 3,32,32)
  STEPS_ARGS=(--steps 1 --warmup 2 --batch 2 --resolution 32 --precision fp32)
else
  KERNEL_ARGS=(--preset full)
  # the guide's loop (fp32, NCHW, b64, as written and strict) is always added to the sweep
  RESNET_ARGS=(--preset full --batches 256 --memory-formats channels_last --compile --graphs)
  IND_ARGS=(--steps 30 --warmup 10 --matmul-n 8192)
  AMP_ARGS=(--steps 20 --batch 64)
  STEPS_ARGS=(--steps 5 --warmup 2 --batch 64 --precision bf16 --channels-last)
fi

# GEMM, copy and vector add (with the timer's calibration), then the ResNet headline run: the
# guide's loop as written, strict fp32, the eager sweep, CUDA graphs and torch.compile
stage bench-kernels 200 "$PY" -m rocport bench "${KERNEL_ARGS[@]}" --workloads calibration,gemm,copy,vector_add \
  --plain-progress --out "$OUT/bench_kernels.json"
stage bench 300 "$PY" -m rocport bench "${RESNET_ARGS[@]}" --workloads calibration,copy,resnet \
  --plain-progress --out "$OUT/bench.json" \
  && "$PY" -m rocport bench report "$OUT/bench.json" -o "$OUT/bench.md" >>"$LOG" 2>&1

# the guide's loop, its strict fp32 twin and the best eager configuration, timed without rocport
IDS=$("$PY" - "$OUT/bench.json" <<'PYEOF' 2>>"$LOG"
import json, sys
doc = json.load(open(sys.argv[1]))
train = [r for r in doc["results"] if r["workload"] == "resnet" and r["params"]["mode"] == "training"]
# the independent loop is eager: compare the best eager configuration
best = max((r for r in train if not r["params"].get("compile") and not r["params"].get("graphs")),
           key=lambda r: r["value"])
guide = [r for r in train if r["params"]["precision"] == "fp32" and r["params"]["memory_format"] == "contiguous"
         and r["params"]["batch"] == doc["metadata"]["settings"]["guide_batch"]]
print(" ".join(dict.fromkeys([best["id"], *(r["id"] for r in guide)])))
PYEOF
)
[ -n "$IDS" ] && stage independent 50 "$PY" benchmarks/independent_check.py --out "$OUT/independent.json" \
  "${IND_ARGS[@]}" $IDS

stage amp-check 70 "$PY" -m rocport amp-check --model resnet50 --precisions fp16,bf16 "${AMP_ARGS[@]}" \
  --json "$OUT/amp_resnet50.json"

stage profile-torch 50 "$PY" -m rocport profile --python benchmarks/resnet50_steps.py \
  --output-dir "$SCRATCH/torch" --json "$OUT/profile_torch.json" --top 15 -- "${STEPS_ARGS[@]}"

if command -v ncu >/dev/null 2>&1 && [[ " ${SUITE_SKIP:-} " != *" profile-ncu "* ]]; then
  stage profile-ncu 75 "$PY" -m rocport profile --tool ncu --counters --kernel 'conv|xmma|fprop|nvjet|gemm' \
    --launch-skip 20 --launch-count 1 --timeout 70 --output-dir "$SCRATCH/ncu" --json "$OUT/profile_ncu.json" \
    -- "$PY" benchmarks/resnet50_steps.py --steps 1 --warmup 1 --batch 64 --precision bf16 --channels-last
else
  echo "== profile-ncu: ncu not on PATH, skipped" | tee -a "$LOG"
fi

if [ -f src/rocport/cli/doctor.py ]; then
  stage doctor 20 sh -c "\"$PY\" -m rocport doctor --json > \"$OUT/doctor.json\""
fi

"$PY" benchmarks/h200_summary.py "$OUT"
rm -rf "$SCRATCH"
