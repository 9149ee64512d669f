#!/usr/bin/env bash
# One training round of the dice reader on a machine with a CUDA GPU and many cores.
#
#   models/dice/train_gpu.sh REAL OUT RUN...
#
# REAL: the labelled real photos (images/, labels/); OUT: where each run's models, log and
# scores go (OUT/<name>/). Each RUN is "name:model:part:options" with model `face` or `detector`,
# part `fit` (to be compared on the tuning photos) or `train` (a final model), and the options
# of train.py, commas for spaces, e.g.  "w2:face:fit:--width,2,--steps,15000"; the runs of one
# round share a part (the mined hard negatives point into its photos). The runs train side
# by side on the one GPU; the pictures they learn from are made on the CPU cores, split between
# them (JOBS). First the synthetic pictures are rendered (make_data.py, seeded: the same every
# time) and the shipped detector mines its hard negatives (train.py mine).
#
# Each run is then scored with eval_real.py on the tuning photos (part fit) or the validation
# photos (part train), paired with the shipped model of the other kind; each score is printed.
# Environment: BUILD (default models/dice/build), TRAY and TABLE (pictures of each, 1500), JOBS
# (default: every core), MINUTES (a guard per run, default 6), MINED (a folder with the hard.json
# and found.json that `train.py mine` left for this part: mining takes minutes), ART (tile designs
# kept by `make_data.py --record-art` where the render extra is installed: the machine then
# draws the same pictures without cairo, so hard negatives mined elsewhere still fit them).
set -euo pipefail
REAL=$1 OUT=$2
shift 2
HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=${BUILD:-$HERE/build}
JOBS=${JOBS:-$(nproc)}
MINUTES=${MINUTES:-6}
SHIPPED=$HERE/../../companion/vision/dice_weights
PY=${PYTHON:-python3}
mkdir -p "$OUT"

part=$(cut -d: -f3 <<<"$1")
for run in "$@"; do
    [[ $(cut -d: -f3 <<<"$run") == "$part" ]] || { echo "every run of a round trains on one part: $run" >&2; exit 2; }
done

t0=$(date +%s)
"$PY" "$HERE/make_data.py" --out "$BUILD" --jobs "$JOBS" --tray "${TRAY:-1500}" --table "${TABLE:-1500}" \
    ${ART:+--replay-art "$ART"} 2>&1 | tail -n 2
echo "pictures made: $(( $(date +%s) - t0 )) s"
if [[ -n ${MINED:-} ]]; then  # mined before, elsewhere, from the same seeded pictures of this part
    cp "$MINED/hard.json" "$MINED/found.json" "$BUILD/"
else
    "$PY" "$HERE/train.py" mine --real "$REAL" --part "$part" --build "$BUILD" --out "$SHIPPED" 2>&1 | tail -n 3
    echo "hard negatives mined: $(( $(date +%s) - t0 )) s"
fi

workers=$(( JOBS / $# - 1 ))
(( workers >= 1 )) || workers=1
pids=()
for run in "$@"; do
    IFS=: read -r name model part opts <<<"$run"
    mkdir -p "$OUT/$name"
    # shellcheck disable=SC2086  # the options are words
    "$PY" "$HERE/train.py" "$model" --real "$REAL" --part "$part" --build "$BUILD" --out "$OUT/$name" \
        --workers "$workers" --threads 1 --max-minutes "$MINUTES" ${opts//,/ } >"$OUT/$name/log" 2>&1 &
    pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid" || echo "a run failed (pid $pid)"; done
echo "trained: $(( $(date +%s) - t0 )) s"

for run in "$@"; do
    IFS=: read -r name model part opts <<<"$run"
    grep -E "WARNING|Error|step [0-9]+/" "$OUT/$name/log" | tail -n 2 || true
    other=$([[ $model == face ]] && echo dice_detect.onnx || echo dice_face.onnx)
    cp -n "$SHIPPED/$other" "$OUT/$name/" 2>/dev/null || true
    score=$([[ $part == fit ]] && echo tune || echo val)
    echo "== $name ($model, $part, ${opts//,/ }) on $score:"
    "$PY" "$HERE/eval_real.py" "$REAL" --part "$score" --models "$OUT/$name" | sed -n 1,2p || echo "   (no score)"
done
