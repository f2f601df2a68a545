// Checks the records of chat_tools_driver (CTest e2e_chat_tools) with independent oracles: every
// call of every finished response names a declared tool (the named one under a named choice), its
// arguments parse as JSON and validate with Ajv against the tool's parameter schema; tool_choice
// none never yields a call, parallel_tool_calls=false never yields two, and required always yields
// one when the response finished. Responses cut off by max_tokens count apart, never as a pass or
// a failure. Prints a JSON summary (shares per format and choice).
// Usage: node check_chat_tools.mjs TOOL_SETS.json RECORDS.jsonl
import { readFileSync } from "node:fs";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

const [setsPath, recordsPath] = process.argv.slice(2);
const sets = JSON.parse(readFileSync(setsPath, "utf8"));
const records = readFileSync(recordsPath, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
const ajv = new Ajv2020({ strict: false, allErrors: false });
addFormats(ajv);
const validators = new Map();
const validatorFor = (set, name) => {
  const key = `${set}/${name}`;
  if (!validators.has(key)) {
    const tool = sets[set].tools.find((t) => t.function.name === name);
    validators.set(key, tool ? ajv.compile(tool.function.parameters ?? { type: "object", properties: {} }) : null);
  }
  return validators.get(key);
};

const failures = [];
const summary = {};
for (const r of records) {
  const key = `${r.format}/${r.choice}`;
  summary[key] ??= { requests: 0, finished: 0, with_tool_calls: 0, calls: 0, validated: 0, cut_off: 0 };
  const s = summary[key];
  s.requests++;
  const fail = (why) => failures.push({ set: r.name, format: r.format, choice: r.choice, why, text: r.text });
  if (r.rejected) { fail(`rejected at submit: ${r.rejected}`); continue; }
  if (r.finish_reason === "error") { fail(`error: ${r.error}`); continue; }
  if (r.choice === "continuation") {
    // Only the suffix comes back; the constraint held for prefix + suffix.
    if (r.finish_reason !== "stop") { s.cut_off++; continue; }
    s.finished++;
    const key = `continuation/${r.set}`;
    if (!validators.has(key)) validators.set(key, ajv.compile(sets[r.set].tools[0].function.parameters));
    if (r.content !== r.text) fail("the continuation's content is not exactly the new suffix");
    let body;
    try { body = JSON.parse(r.prefix + r.content); } catch (e) { fail(`prefix + suffix is not JSON: ${r.prefix + r.content}`); continue; }
    if (!validators.get(key)(body)) fail(`prefix + suffix invalid: ${ajv.errorsText(validators.get(key).errors)}`);
    else s.validated++;
    continue;
  }
  if (r.choice === "thinking") {
    // The close comes within budget + its 3 tokens (+1 when the budget falls inside a UTF-8 sequence).
    if (r.reasoning_tokens > r.budget + 4 && (r.thinking_closed || r.tokens > r.budget + 4))
      fail(`thinking ran ${r.reasoning_tokens} tokens past a budget of ${r.budget}`);
    if (r.content.includes("<think>") || r.content.includes("</think>")) fail("thinking markup leaked into content");
    if (r.finish_reason !== "stop") { s.cut_off++; continue; }
    s.finished++;
    const schema = sets[r.set].tools[0].function.parameters;
    const key = `thinking/${r.set}`;
    if (!validators.has(key)) validators.set(key, ajv.compile(schema));
    let body;
    try { body = JSON.parse(r.content); } catch (e) { fail(`body is not JSON: ${r.content}`); continue; }
    if (!validators.get(key)(body)) fail(`body invalid: ${ajv.errorsText(validators.get(key).errors)}`);
    else s.validated++;
    continue;
  }
  // Properties of the choice that hold for cut-off outputs too.
  // Call tags outside the calls' own values: a free string argument may spell "<tool_call>" (a
  // JSON string, or an XML parameter's raw text, either of them possibly cut off), and that is not a call.
  const outside = r.text
    .replace(/<parameter=[^>]*>[\s\S]*?(<\/parameter>|$)/g, "")
    .replace(/"(?:[^"\\]|\\.)*"/g, "S")
    .replace(/"[\s\S]*$/, "");
  const opens = (outside.match(/<tool_call>/g) || []).length;
  if ((r.choice === "named" || r.choice === "single") && r.tool_calls.length > 1) fail("parallel_tool_calls=false parsed a second call");
  // With tool_choice none the output is free text: any call tag in it is a failure.
  if (r.choice === "none" && (r.text.includes("<tool_call>") || r.tool_calls.length)) fail("tool_choice none wrote a call");
  if ((r.choice === "named" || r.choice === "single") && opens > 1) fail("parallel_tool_calls=false wrote a second call");
  if (r.choice === "named")
    for (const call of r.tool_calls)
      if (call.name !== sets[r.set].tools[sets[r.set].tools.length - 1].function.name) fail(`named choice yielded ${call.name}`);
  if (r.finish_reason !== "stop") { s.cut_off++; continue; }
  s.finished++;
  const calls = r.tool_calls;
  if (calls.length) s.with_tool_calls++;
  s.calls += calls.length;
  const tools = sets[r.set].tools;
  if (r.choice !== "none" && calls.length === 0) fail("tool_choice required finished without a call");
  if ((r.choice === "named" || r.choice === "single") && calls.length > 1) fail("parallel_tool_calls=false yielded several calls");
  for (const call of calls) {
    if (!/^call_[0-9a-f]{24}$/.test(call.id)) fail(`bad call id ${call.id}`);
    const validate = validatorFor(r.set, call.name);
    if (!validate) { fail(`undeclared tool ${call.name}`); continue; }
    let args;
    try { args = JSON.parse(call.arguments); } catch (e) { fail(`arguments are not JSON: ${call.arguments}`); continue; }
    // JavaScript reads a number past binary64 as Infinity, so Ajv cannot judge it (the JSON is
    // valid and the schema's integer is unbounded): counted apart, never as a pass.
    if (/[0-9]{300,}/.test(call.arguments.replace(/"(?:[^"\\]|\\.)*"/g, '""'))) { s.beyond_js_numbers = (s.beyond_js_numbers || 0) + 1; continue; }
    s.validated = (s.validated || 0) + 1;
    if (!validate(args)) fail(`arguments invalid for ${call.name}: ${ajv.errorsText(validate.errors)} in ${call.arguments}`);
  }
}
for (const s of Object.values(summary)) s.share_with_tool_calls = +(s.with_tool_calls / s.requests).toFixed(3);
console.log(JSON.stringify({ records: records.length, failures: failures.length, summary }));
for (const f of failures.slice(0, 10)) console.error(JSON.stringify(f).slice(0, 600));
process.exit(failures.length ? 1 : 0);
