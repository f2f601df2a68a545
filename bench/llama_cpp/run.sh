#!/usr/bin/env bash
# Decode benchmark of NInfer against llama.cpp on the same random-weight Qwen3-0.6B-shaped GGUF, in
# one run: ninfer bench decode (B=1 and B=8, unconstrained vs constrained in one process) and
# llama.cpp via node-llama-cpp@3.21.1's prebuilt CPU build (installed here from the lock file).
# Usage: bench/llama_cpp/run.sh [THREADS] [TOKENS]      (needs ./build/ninfer)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
THREADS="${1:-1}"
TOKENS="${2:-32}"
MODEL_DIR="${NINFER_BENCH_MODEL_DIR:-$ROOT/.cache/bench-models}"
GGUF="$MODEL_DIR/qwen3-0.6b-s1-f16.gguf"
if [ ! -f "$GGUF" ]; then
  mkdir -p "$MODEL_DIR"
  "$ROOT/build/ninfer" make-model --preset 0.6b --seed 1 --out "$MODEL_DIR/qwen3-0.6b-s1" --gguf "$GGUF" --gguf-type f16 >&2
fi
(cd "$ROOT/bench/llama_cpp" && [ -d node_modules/node-llama-cpp ] || npm ci --omit=optional --ignore-scripts --no-audit --no-fund >&2)
SCHEMA="$ROOT/examples/schemas/order_lines.json"  # the default schema of ninfer bench decode
echo "{"
echo "\"ninfer_b1\":"
"$ROOT/build/ninfer" bench decode --model "$GGUF" --batch 1 --tokens "$TOKENS" --threads "$THREADS" --repeats 3 --json-schema-file "$SCHEMA"
echo ",\"ninfer_b8\":"
"$ROOT/build/ninfer" bench decode --model "$GGUF" --batch 8 --tokens "$TOKENS" --threads "$THREADS" --repeats 3 --json-schema-file "$SCHEMA"
echo ",\"llama_cpp_b1\":"
node "$ROOT/bench/llama_cpp/decode.mjs" --model "$GGUF" --tokens "$TOKENS" --threads "$THREADS" --schema "$SCHEMA" --repeats 3
echo "}"
