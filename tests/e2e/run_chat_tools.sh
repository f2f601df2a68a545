#!/usr/bin/env bash
# CTest `e2e_chat_tools`: strict tool calling on the default generated tiny Qwen3 model for every
# tool set of tests/frontend/tool_sets.json, in both Qwen formats, checked by Ajv (check_chat_tools.mjs).
# Usage: run_chat_tools.sh DRIVER SOURCE_ROOT   (skips when node or the npm packages are missing)
set -euo pipefail
DRIVER="$1"
ROOT="$2"
if ! command -v node >/dev/null 2>&1 || [ ! -d "$ROOT/node_modules/ajv" ]; then
  echo "SKIP e2e_chat_tools: node or node_modules/ajv missing (run npm ci)"; exit 0
fi
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
SETS="$ROOT/tests/frontend/tool_sets.json"
"$DRIVER" --tool-sets "$SETS" --max-tokens 512 --seed 1 --out "$TMP/chat_tools.jsonl"
node "$ROOT/tests/e2e/check_chat_tools.mjs" "$SETS" "$TMP/chat_tools.jsonl"
