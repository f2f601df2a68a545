#!/usr/bin/env bash
# CTest `e2e_generate`: constrained generation on the default generated tiny Qwen3 model (created on
# first use) for 50 MaskBench schemas plus json_object, regex, choice, two GBNFs and a dead-end
# grammar, 8 requests in flight over 4 batch rows; JSON checked by Ajv, the rest by check_e2e.mjs.
# Usage: run_e2e.sh E2E_DRIVER SOURCE_ROOT   (skips when node or the npm packages are missing)
set -euo pipefail
DRIVER="$1"
ROOT="$2"
DATA="$ROOT/../shared/data/maskbench"
if ! command -v node >/dev/null 2>&1 || [ ! -d "$ROOT/node_modules/ajv" ]; then
  echo "SKIP e2e_generate: node or node_modules/ajv missing (run npm ci)"; exit 0
fi
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
ARGS=(--count 50 --max-tokens 640 --seed 1 --out "$TMP/e2e.jsonl")
[ -d "$DATA" ] && ARGS+=(--maskbench "$DATA")
"$DRIVER" "${ARGS[@]}"
status=0
node "$ROOT/tests/e2e/check_e2e.mjs" "$TMP/e2e.jsonl" || status=1
if [ -d "$DATA" ]; then
  grep '"kind":"maskbench"' "$TMP/e2e.jsonl" > "$TMP/maskbench.jsonl"
  node "$ROOT/tests/ajv/validate_instances.mjs" --maskbench "$DATA" --input "$TMP/maskbench.jsonl" \
    --label "e2e generation (ajv)" | tail -n 3 || status=1
fi
exit "$status"
