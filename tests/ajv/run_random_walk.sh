#!/usr/bin/env bash
# CTest `ajv_random_walk`: seeded random walks through the masks of a sample of MaskBench schemas
# (`ninfer grammar sample`), every instance that ended validated by Ajv (validate_instances.mjs),
# in both whitespace modes and with the flexible property order. Usage: run_random_walk.sh NINFER_BINARY SOURCE_ROOT
# Skips (exit 0) when node, node_modules/ajv* or ../shared/data/maskbench is missing.
set -euo pipefail
NINFER="$1"
ROOT="$2"
DATA="$ROOT/../shared/data/maskbench"
if ! command -v node >/dev/null 2>&1; then
  echo "SKIP ajv_random_walk: node is not installed"; exit 0
fi
for m in ajv ajv-formats ajv-draft-04; do
  if [ ! -d "$ROOT/node_modules/$m" ]; then
    echo "SKIP ajv_random_walk: $ROOT/node_modules/$m missing (run npm ci)"; exit 0
  fi
done
if [ ! -d "$DATA" ]; then
  echo "SKIP ajv_random_walk: $DATA missing"; exit 0
fi
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

passed=0
failed=0
status=0
# whitespace, sample size, seed, property order: about 80 s of one idle core in Release.
for run in "compact 600 7 declared" "flexible 300 11 declared" "compact 200 13 flexible"; do
  set -- $run
  name="$1-$4"
  "$NINFER" grammar sample --maskbench "$DATA" --sample "$2" --seed "$3" --tokenizer llama3_1 \
    --whitespace "$1" --property-order "$4" --count 4 --max-tokens 512 > "$TMP/$name.jsonl"
  set +e
  node "$ROOT/tests/ajv/validate_instances.mjs" --maskbench "$DATA" --input "$TMP/$name.jsonl" \
    --label "ajv random walk ($1 whitespace, $4 order)" > "$TMP/$name.txt"
  rc=$?
  set -e
  cat "$TMP/$name.txt"
  last="$(tail -n 1 "$TMP/$name.txt")"
  p="$(echo "$last" | sed -n 's/.*: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p')"
  f="$(echo "$last" | sed -n 's/.*: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p')"
  if [ "$rc" -gt 1 ] || [ -z "$p" ]; then
    echo "FAIL: the validator did not run (exit status $rc)"; exit 1
  fi
  if [ "$p" -lt 100 ]; then
    echo "FAIL: only $p instances of the $name run ended and validated (is the sampler broken?)"; status=1
  fi
  [ "$rc" = 0 ] || status=1
  passed=$((passed + p))
  failed=$((failed + f))
done
echo "ajv random walk: $passed passed, $failed failed"
exit "$status"
