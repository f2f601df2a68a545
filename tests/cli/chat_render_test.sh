#!/usr/bin/env bash
# End-to-end check of `ninfer chat render`: exact bytes against the Python Jinja2 oracle, template sources (bundled
# name, .jinja file, tokenizer config), and the error JSON with exit status 2.
set -euo pipefail
NINFER="$1"
ROOT="$2"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
# Runs `ninfer chat render ARGS...` and prints its stdout; fails unless it exits 2.
render_fails() {
  local out rc
  set +e
  out="$("$NINFER" chat render "$@")"
  rc=$?
  set -e
  [ "$rc" = 2 ] || fail "exit status $rc for chat render $*" >&2
  printf '%s' "$out"
}

cat > "$TMP/ctx.json" <<'CTX'
{"messages": [{"role": "system", "content": "Be brief."},
              {"role": "user", "content": "Weather in Paris? é 🎉"},
              {"role": "assistant", "content": "", "reasoning_content": "Need the tool.",
               "tool_calls": [{"type": "function", "function": {"name": "get_weather", "arguments": {"city": "Paris", "days": 2}}}]},
              {"role": "tool", "content": "{\"temp\": 21}"},
              {"role": "tool", "content": "{\"rain\": false}"}],
 "tools": [{"type": "function", "function": {"name": "get_weather", "description": "Forecast",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}, "required": ["city"]}}}],
 "add_generation_prompt": true, "enable_thinking": false}
CTX

# 1. Exact bytes against the oracle, for each bundled template.
for name in qwen3 qwen3_5 qwen3_coder; do
  "$NINFER" chat render --template "$name" --context "$TMP/ctx.json" > "$TMP/ours.txt"
  python3 - "$ROOT" "$name" "$TMP/ctx.json" > "$TMP/oracle.txt" <<'PY'
import json, subprocess, sys
root, name, ctx = sys.argv[1:]
line = json.dumps({"bundled": name, "context": json.load(open(ctx, encoding="utf-8"))}, ensure_ascii=False)
out = subprocess.run(["python3", f"{root}/tests/jinja/oracle_render.py", f"{root}/src/jinja/templates"],
                     input=line + "\n", capture_output=True, text=True, check=True).stdout
result = json.loads(out)
if "ok" not in result:
    sys.exit(f"oracle failed: {result}")
sys.stdout.write(result["ok"])
PY
  cmp -s "$TMP/ours.txt" "$TMP/oracle.txt" || { diff "$TMP/ours.txt" "$TMP/oracle.txt" | head -20; fail "$name render differs from the oracle"; }
done

# 2. No added newline: the output ends exactly where the template does.
printf '{{ greeting }}' > "$TMP/t.jinja"
printf '{"greeting": "hi"}' > "$TMP/g.json"
[ "$("$NINFER" chat render --template "$TMP/t.jinja" --context "$TMP/g.json" | od -An -c | tr -d ' \n')" = "hi" ] || fail "a .jinja file renders hi with no newline"

# 3. A tokenizer config: its chat_template and its bos_token as a variable.
python3 -c 'import json; json.dump({"chat_template": "{{ bos_token }}{{ messages[0].content }}", "bos_token": {"content": "<s>"}}, open("'"$TMP"'/tokenizer_config.json", "w"))'
printf '{"messages": [{"role": "user", "content": "x"}]}' > "$TMP/m.json"
[ "$("$NINFER" chat render --template "$TMP/tokenizer_config.json" --context "$TMP/m.json")" = "<s>x" ] || fail "tokenizer config"
[ "$("$NINFER" chat render --template "$TMP" --context "$TMP/m.json")" = "<s>x" ] || fail "model folder"

# 4. A template-raised error: kind, exact message, location.
printf '{"messages": [{"role": "robot", "content": "x"}, {"role": "user", "content": "q"}]}' > "$TMP/bad_role.json"
out="$(render_fails --template qwen3_5 --context "$TMP/bad_role.json")"
python3 - "$out" <<'PY' || fail "raised error shape: $out"
import json, sys
e = json.loads(sys.argv[1])["error"]
assert e["kind"] == "raised", e
assert e["message"] == "Unexpected message role.", e
assert e["location"]["line"] > 0 and e["location"]["column"] > 0, e
PY

# 5. Syntax error in a template file, located.
printf 'ok\n{{ a + }}' > "$TMP/broken.jinja"
out="$(render_fails --template "$TMP/broken.jinja" --context "$TMP/g.json")"
[ "$out" = '{"error":{"kind":"syntax","message":"unexpected end of print statement","location":{"line":2,"column":8}}}' ] || fail "syntax error: $out"

# 6. Invalid input: missing files, bad JSON, unknown template.
out="$(render_fails --template qwen3 --context "$TMP/missing.json")"
case "$out" in '{"error":{"kind":"invalid_input",'*'"location":{"line":0,"column":0}}}') ;; *) fail "missing context: $out" ;; esac
printf '{"messages": [' > "$TMP/trunc.json"
out="$(render_fails --template qwen3 --context "$TMP/trunc.json")"
case "$out" in '{"error":{"kind":"invalid_input",'*) ;; *) fail "bad JSON: $out" ;; esac
out="$(render_fails --template no_such_template --context "$TMP/g.json")"
case "$out" in *'"kind":"invalid_input"'*no_such_template*) ;; *) fail "unknown template: $out" ;; esac
echo "chat render: all checks passed"
