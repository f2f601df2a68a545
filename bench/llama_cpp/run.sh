#!/usr/bin/env bash
# NInfer against llama.cpp on the same random-weight Qwen3-0.6B-shaped GGUF, in one run. llama.cpp is
# node-llama-cpp@3.21.1's prebuilt CPU build, installed here from the lock file.
#   run.sh decode  [THREADS] [TOKENS]            ninfer bench decode (B=1 and B=8, unconstrained vs constrained)
#                                                and llama.cpp's decode, f16
#   run.sh prefill [THREADS] [LENGTHS] [TYPE]    prompt tokens/s at each length ("512 2048 8192"), TYPE f16 or
#                                                q8_0; ninfer and llama.cpp alternate per length; with several
#                                                lengths, "alternated" is ninfer's lengths measured in one
#                                                process, alternated round by round (the ratio between lengths;
#                                                RATIO_REPEATS rounds, at least 7)
#   run.sh gguf TYPE                             the GGUF's path (written on first use)
#   run.sh [THREADS] [TOKENS]                    = decode
# Needs ./build/ninfer. Prints one JSON object.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
MODE=decode
case "${1:-}" in decode|prefill|gguf) MODE="$1"; shift ;; esac
THREADS="${1:-1}"
MODEL_DIR="${NINFER_BENCH_MODEL_DIR:-$ROOT/.cache/bench-models}"

gguf_of() {  # the 0.6b-shaped model, seed 1, as GGUF of type $1 (written on first use)
  local file="$MODEL_DIR/qwen3-0.6b-s1-$1.gguf"
  if [ ! -f "$file" ]; then
    mkdir -p "$MODEL_DIR"
    "$ROOT/build/ninfer" make-model --preset 0.6b --seed 1 --out "$MODEL_DIR/qwen3-0.6b-s1-$1" --gguf "$file" --gguf-type "$1" --force >&2
  fi
  echo "$file"
}
if [ "$MODE" = gguf ]; then
  gguf_of "${1:?run.sh gguf TYPE}"
  exit 0
fi
(cd "$ROOT/bench/llama_cpp" && [ -d node_modules/node-llama-cpp ] || npm ci --omit=optional --ignore-scripts --no-audit --no-fund >&2)

if [ "$MODE" = decode ]; then
  TOKENS="${2:-32}"
  GGUF="$(gguf_of f16)"
  SCHEMA="$ROOT/examples/schemas/order_lines.json"  # the default schema of ninfer bench decode
  echo "{"
  echo "\"ninfer_b1\":"
  "$ROOT/build/ninfer" bench decode --model "$GGUF" --batch 1 --tokens "$TOKENS" --threads "$THREADS" --repeats 3 --json-schema-file "$SCHEMA"
  echo ",\"ninfer_b8\":"
  "$ROOT/build/ninfer" bench decode --model "$GGUF" --batch 8 --tokens "$TOKENS" --threads "$THREADS" --repeats 3 --json-schema-file "$SCHEMA"
  echo ",\"llama_cpp_b1\":"
  node "$ROOT/bench/llama_cpp/decode.mjs" --model "$GGUF" --tokens "$TOKENS" --threads "$THREADS" --schema "$SCHEMA" --repeats 3
  echo "}"
  exit 0
fi

LENGTHS="${2:-512 2048 8192}"
TYPE="${3:-f16}"
GGUF="$(gguf_of "$TYPE")"
REPEATS="${REPEATS:-3}"
# The ratio between lengths takes more rounds than each length's own figure: it is a quotient of two
# medians on a host whose speed moves from minute to minute. Eleven runs of 3 rounds (q8_0, one
# thread, 2026-12-06) gave 2,048 / 512 from 78.1% to 89.0% (median 82.2%, three under 80%).
RATIO_REPEATS="${RATIO_REPEATS:-$(( REPEATS > 7 ? REPEATS : 7 ))}"
echo "{\"type\": \"$TYPE\", \"threads\": $THREADS, \"lengths\": ["
first=1
for n in $LENGTHS; do
  [ $first = 1 ] || echo ","
  first=0
  ours="$("$ROOT/build/ninfer" bench prefill --model "$GGUF" --tokens "$n" --threads "$THREADS" --repeats "$REPEATS" --forward-only)"
  theirs="$(node "$ROOT/bench/llama_cpp/prefill.mjs" --model "$GGUF" --tokens "$n" --threads "$THREADS" --repeats "$REPEATS")"
  ratio="$(node -e 'const a=JSON.parse(process.argv[1]), b=JSON.parse(process.argv[2]); console.log((a.forward.tokens_per_s / b.tokens_per_s).toFixed(3))' "$ours" "$theirs")"
  echo "{\"tokens\": $n, \"ratio\": $ratio, \"ninfer\": $ours, \"llama_cpp\": $theirs}"
done
echo "]"
set -- $LENGTHS
if [ $# -gt 1 ]; then
  echo ",\"alternated\":"
  "$ROOT/build/ninfer" bench prefill --model "$GGUF" --tokens "${LENGTHS// /,}" --threads "$THREADS" --repeats "$RATIO_REPEATS" --forward-only
fi
echo "}"
