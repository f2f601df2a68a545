#!/usr/bin/env node
// Independent checks of the non-schema records written by e2e_driver (JSON Schema records go to
// tests/ajv/validate_instances.mjs): JSON.parse for json_object, JavaScript RegExp (ECMAScript
// semantics) for regex and the regular GBNF, a bracket counter for the recursive GBNF, membership
// for choice, and the dead-end request failing alone. Also: a "stop" finish must be terminated, a
// finished-at-length output may only claim complete when it really is.
// Usage: node check_e2e.mjs FILE.jsonl   (exit 1 on any failure)
import fs from "node:fs";

const lines = fs.readFileSync(process.argv[2], "utf8").split("\n").filter((l) => l.trim());
let checked = 0, failures = 0, ended = 0;
const fail = (rec, why) => {
  ++failures;
  process.stdout.write(JSON.stringify({ failure: why, kind: rec.kind, text: rec.text }) + "\n");
};

function balanced(text) {
  const stack = [];
  for (const ch of text) {
    if (ch === "(" || ch === "[") stack.push(ch);
    else if (ch === ")" || ch === "]") {
      const open = stack.pop();
      if ((ch === ")" && open !== "(") || (ch === "]" && open !== "[")) return false;
    } else return false;
  }
  return stack.length === 0 && text.length > 0;
}

const inLanguage = {
  json_object: (r) => {
    try {
      const v = JSON.parse(r.text);
      return v !== null && typeof v === "object" && !Array.isArray(v);
    } catch {
      return false;
    }
  },
  regex: (r) => new RegExp(`^(?:${r.source})$`, "u").test(r.text),
  choice: (r) => r.choices.includes(r.text),
  gbnf: (r) => /^[a-z]{1,8}=[0-9]{1,4}(,[a-z]{1,8}=[0-9]{1,4}){0,4}$/.test(r.text),
  gbnf_balanced: (r) => balanced(r.text),
};

for (const line of lines) {
  const rec = JSON.parse(line);
  if (rec.kind === "maskbench") continue;
  ++checked;
  if (rec.kind === "dead_end") {
    if (rec.request_error !== "constraint_dead_end" || rec.text !== "a") fail(rec, "dead end did not fail alone as constraint_dead_end after 'a'");
    continue;
  }
  if (rec.request_error) {
    fail(rec, `request error ${rec.request_error}`);
    continue;
  }
  if (rec.finish_reason === "stop" && !rec.terminated) fail(rec, "finish 'stop' without an accepted EOS");
  if (rec.terminated && rec.finish_reason !== "stop") fail(rec, "terminated but finish reason is not 'stop'");
  if (rec.complete || rec.terminated) {
    ++ended;
    if (!inLanguage[rec.kind](rec)) fail(rec, "complete output is outside the language");
  } else if (rec.finish_reason !== "length") {
    fail(rec, "incomplete output that did not stop at max_tokens");
  } else if (rec.kind !== "json_object" && inLanguage[rec.kind](rec)) {
    fail(rec, "output is in the language but complete=false was reported");
  }
}
process.stdout.write(`e2e checks: ${checked} records, ${ended} complete, ${failures} failed\n`);
process.exitCode = failures ? 1 : 0;
