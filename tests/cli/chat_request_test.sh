#!/usr/bin/env bash
# End-to-end check of `ninfer chat --request` on the default tiny model: a strict tool under
# tool_choice required comes back as an OpenAI chat.completion with tool_calls in both Qwen formats
# (bundled templates), a JSON Schema response_format gives content that parses to its shape, and bad
# requests exit 2 with an OpenAI-shaped error whose `param` names the field.
set -euo pipefail
NINFER="$1"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
# Runs `ninfer chat --request FILE ARGS...`; prints stdout; fails unless the exit status is $1.
request() {
  local want="$1" file="$2" out rc
  shift 2
  set +e
  out="$("$NINFER" chat --request "$file" "$@")"
  rc=$?
  set -e
  [ "$rc" = "$want" ] || fail "exit status $rc (wanted $want) for $file $*: $out" >&2
  printf '%s' "$out"
}
field() { python3 -c "import json,sys; d=json.loads(sys.argv[1]); print(eval(sys.argv[2], {}, {'d': d}))" "$1" "$2"; }

cat > "$TMP/tools.json" <<'JSON'
{"model": "tiny", "messages": [{"role": "user", "content": "Weather in Paris?"}],
 "tools": [{"type": "function", "function": {"name": "get_weather", "strict": true,
   "parameters": {"type": "object", "properties": {"city": {"type": "string", "enum": ["Paris", "Oslo"]},
                  "days": {"type": "integer", "minimum": 1, "maximum": 3}},
                  "required": ["city", "days"], "additionalProperties": false}}}],
 "tool_choice": "required", "max_tokens": 200, "seed": 3, "chat_template_kwargs": {"enable_thinking": false}}
JSON
for t in qwen3 qwen3_5 qwen3_coder; do
  out="$(request 0 "$TMP/tools.json" --chat-template "$t")"
  [ "$(field "$out" "d['object']")" = chat.completion ] || fail "$t: not a chat.completion: $out"
  [ "$(field "$out" "d['choices'][0]['finish_reason']")" = tool_calls ] || fail "$t: finish_reason: $out"
  [ "$(field "$out" "d['choices'][0]['message']['tool_calls'][0]['function']['name']")" = get_weather ] || fail "$t: name: $out"
  args="$(field "$out" "d['choices'][0]['message']['tool_calls'][0]['function']['arguments']")"
  python3 -c "import json,sys; a=json.loads(sys.argv[1]); assert a['city'] in ('Paris','Oslo') and a['days'] in (1,2,3) and len(a)==2, a" "$args" \
    || fail "$t: arguments $args"
  [ "$(field "$out" "d['constraint']['branch']")" = tools ] || fail "$t: branch: $out"
done

# A JSON Schema body: the content parses and holds the required key.
cat > "$TMP/schema.json" <<'JSON'
{"messages": [{"role": "user", "content": "ok?"}], "max_tokens": 64, "seed": 1,
 "chat_template_kwargs": {"enable_thinking": false},
 "response_format": {"type": "json_schema", "json_schema": {"name": "ok", "strict": true,
   "schema": {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"], "additionalProperties": false}}}}
JSON
out="$(request 0 "$TMP/schema.json")"
[ "$(field "$out" "type(__import__('json').loads(d['choices'][0]['message']['content'])['ok']).__name__")" = bool ] \
  || fail "schema content: $out"

# Rejections name their field.
reject() {  # FILE_CONTENT EXPECTED_PARAM
  printf '%s' "$1" > "$TMP/bad.json"
  local out
  out="$(request 2 "$TMP/bad.json" --chat-template qwen3_5)"
  [ "$(field "$out" "d['error']['param']")" = "$2" ] || fail "param for $1: $out"
  [ "$(field "$out" "d['error']['type']")" = invalid_request_error ] || fail "type for $1: $out"
}
reject '{"messages": [{"role": "user", "content": "x"}], "tools": [{"type": "function", "function": {"name": "a", "strict": true, "parameters": {"type": "object", "properties": {"v": {"type": ["string", "integer"]}}, "required": ["v"], "additionalProperties": false}}}]}' \
  'tools[0].function.parameters.properties.v'
reject '{"messages": [{"role": "user", "content": "x"}], "response_format": {"type": "json_schema", "json_schema": {"name": "x", "schema": {"type": "object", "properties": {"age": {"type": "integer", "minimum": "3"}}}}}}' \
  'response_format.json_schema.schema.properties.age.minimum'
reject '{"messages": [{"role": "user", "content": "x"}, {"role": "assistant", "content": "[1,"}], "continue_final_message": true, "add_generation_prompt": false, "response_format": {"type": "json_object"}}' \
  'messages[1].content'
reject '{"messages": [{"role": "user", "content": "x"}], "temperature": "hot"}' 'temperature'
reject '{"messages": [{"role": "user", "content": "x"}], "frobnicate": 1}' 'frobnicate'
reject '{"messages": [{"role": "user", "content": "x"}], "tools": [{"type": "function", "function": {"name": "a"}}], "tool_choice": {"type": "function", "function": {"name": "b"}}}' \
  'tool_choice.function.name'
echo "chat --request: all checks passed"
