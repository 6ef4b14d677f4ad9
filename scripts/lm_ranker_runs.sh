#!/bin/bash
# The LM ranker's long trainings (docs/lm-ranker.md), one after another (never two at once on a
# small CPU), each recorded under benchmarks/results/NAME when it finishes. Resumable: run the
# script again after an interruption; finished runs (MODELS/NAME/result.json) are skipped and an
# interrupted one continues from MODELS/NAME/checkpoint/state.pt.
#
#   nohup nice -n 10 scripts/lm_ranker_runs.sh /work/models [full|reduced|reduced-knowref|reduced-whole] \
#       >> /work/models/lm-ranker-runs.log 2>&1 &
#
# MODELS (default: models) holds the KITMUS suite (made here with default settings when absent),
# one training folder per run and each run's JSON line (MODELS/NAME.jsonl, its log in
# MODELS/NAME.log). PY: the Python with refbench's dependencies (default: .venv/bin/python).
set -u
cd "$(dirname "$0")/.."
MODELS=$(realpath -m "${1:-models}")
PY=${PY:-.venv/bin/python}
export PYTHONPATH="$PWD/src" HF_HUB_OFFLINE=1 OMP_NUM_THREADS=1
SUITE=$MODELS/kitmus-suite
mkdir -p "$MODELS"

run() {  # NAME ARGS...: benchmarks/lm_ranker.py ARGS --out MODELS/NAME --record NAME
  local name=$1 out=$MODELS/$1 resume=""
  shift
  if [ -f "$out/result.json" ]; then echo "$name: finished before, skipped"; return 0; fi
  [ -f "$out/checkpoint/state.pt" ] && resume="--resume"
  echo "=== $name: start $(date -Is) $resume"
  if "$PY" benchmarks/lm_ranker.py "$@" --threads 1 --out "$out" --record "$name" $resume \
      > "$MODELS/$name.jsonl" 2> "$MODELS/$name.log"; then
    cp "$MODELS/$name.jsonl" "$out/result.json"
    echo "=== $name: finished $(date -Is)"
  else
    echo "=== $name: FAILED $(date -Is) (see $MODELS/$name.log); later runs not started"
    exit 1
  fi
}

if [ ! -f "$SUITE/stats.json" ]; then
  "$PY" -c "from refbench.cli import main; main()" kitmus generate --out "$SUITE" --quiet \
    --no-probe --skip-if-current || exit 1
fi

if [ "${2:-full}" = "reduced" ]; then
  # What one evening on this 2-core CPU affords (docs/lm-ranker.md, "Reduced runs"): KITMUS
  # with 2 entities (a 4-entity step costs 3x as much), the first 800 training instances
  # (100 steps), selected on the first 96 validation instances every 50 steps, scored on the
  # first 400 test instances; the same recipe for both variants.
  for v in background-pretrain:pretrain background-inference-charfict-charfict:charfict; do
    run "lm-kitmus-${v#*:}-2-reduced" --task kitmus --suite "$SUITE" --variant "${v%%:*}" \
      --entities 2 --train-limit 800 --dev-limit 96 --test-limit 400 --epochs 1 --lr 2e-4 \
      --train-layers 4 --eval-every 50 --checkpoint-every 25
  done
  echo "=== reduced runs finished $(date -Is)"
  exit 0
fi
if [ "${2:-full}" = "reduced-whole" ]; then
  # Is the scoring rule what keeps KITMUS from being learnt? The same reduced run on
  # background-pretrain, scoring whole texts (the candidate's own tokens count), on half the
  # training sample.
  run lm-kitmus-pretrain-2-whole-reduced --task kitmus --suite "$SUITE" \
    --variant background-pretrain --entities 2 --train-limit 400 --dev-limit 96 \
    --test-limit 400 --epochs 1 --lr 1e-4 --train-layers 4 --scoring whole --eval-every 25 \
    --checkpoint-every 25
  exit 0
fi
if [ "${2:-full}" = "reduced-knowref" ]; then
  # The best probe's recipe (q7) on twice its sample: every parameter, 800 training instances
  # and their switched copies balanced by text position, lr 5e-5, one pass, the last weights
  # (no selection; dev scored once after), scored on the whole test set and its switched copy.
  run lm-knowref-q7-800 --task knowref --augment --balance-train --balance-by text \
    --balance-dev 200 --train-limit 800 --epochs 1 --lr 5e-5 --train-layers 0 --final \
    --checkpoint-every 50
  exit 0
fi

# The full recipes (6-9 h each here; not run yet). KnowRef (the most promising probe, docs/lm-ranker.md): every parameter trains, on the
# training set with its switched copies, balanced by the gold's text position, selected on
# 800 dev instances balanced the same way.
run lm-knowref-full-augment-baltext --task knowref --augment --balance-train --balance-by text \
  --balance-dev 800 --train-layers 0 --epochs 2 --lr 2e-5 --eval-every 250 --patience 4 \
  --checkpoint-every 100
# KITMUS, 4 entities: background knowledge at pretrain time, then fictional and given only at
# inference time (the paper's central contrast). The top 4 layers train (a full backward pass
# over 32 sequences of ~120 tokens would hold several GB of activations).
run lm-kitmus-pretrain-4 --task kitmus --suite "$SUITE" --variant background-pretrain \
  --entities 4 --epochs 1 --lr 1e-4 --train-layers 4 --eval-every 125 --dev-limit 200 \
  --checkpoint-every 25
run lm-kitmus-charfict-4 --task kitmus --suite "$SUITE" \
  --variant background-inference-charfict-charfict --entities 4 --epochs 1 --lr 1e-4 \
  --train-layers 4 --eval-every 125 --dev-limit 200 --checkpoint-every 25
echo "=== all runs finished $(date -Is)"
