// Drives a real `ninfer serve` through the OpenAI Responses API (POST /v1/responses) with the official
// `openai` SDK, streaming and not, and checks what comes back with independent oracles: Ajv for
// text.format json_schema outputs and function_call arguments, regular expressions for the extension
// constraints, and the raw SSE framing read with fetch (what the SDK's accumulator would let through).
// Outputs cut off by max_output_tokens (status "incomplete") are counted apart, never as a pass or as a
// failure of the constraint.
// Usage: node responses_sdk_test.mjs NINFER_BINARY
import OpenAI from "openai";
import Ajv2020 from "ajv/dist/2020.js";
import { startServer, Checks, rawSse } from "./harness.mjs";
import { PROFILE, WEATHER, TIME } from "./schemas.mjs";

const ninfer = process.argv[2];
const KEY = "sk-ninfer-responses-test";
const MODEL = "ninfer-default";
const ajv = new Ajv2020({ strict: false });
const t = new Checks("responses_sdk");

// Responses tools are flat: {type, name, description, parameters, strict}.
const TOOLS = [
  { type: "function", name: "get_weather", description: "Weather in a city", parameters: WEATHER, strict: true },
  { type: "function", name: "get_time", description: "Time in a zone", parameters: TIME, strict: true },
];
const validators = { get_weather: ajv.compile(WEATHER), get_time: ajv.compile(TIME) };
const profileValid = ajv.compile(PROFILE);
const PROFILE_FORMAT = { format: { type: "json_schema", name: "profile", schema: PROFILE, strict: true } };
// The default template lets the turn open thinking, and a random model never closes it by itself.
const NT = { chat_template_kwargs: { enable_thinking: false } };
// The protocol's own switch for the same thing.
const NO_REASONING = { reasoning: { effort: "none" } };
let cutOff = 0;

const calls = (r) => r.output.filter((i) => i.type === "function_call");
const messages = (r) => r.output.filter((i) => i.type === "message");
const reasonings = (r) => r.output.filter((i) => i.type === "reasoning");

// Counts a cut-off apart and says whether the response finished; checks what a cut-off must say.
function finished(r, what) {
  if (r.status === "completed") {
    t.equal(r.incomplete_details, null, `${what}: a completed response has no incomplete_details`);
    return true;
  }
  t.equal(r.status, "incomplete", `${what}: a response that did not complete is incomplete`);
  t.equal(r.incomplete_details?.reason, "max_output_tokens", `${what}: the cut-off names max_output_tokens`);
  cutOff++;
  return false;
}

function checkCalls(r, allowed, what) {
  for (const c of calls(r)) {
    t.ok(allowed.includes(c.name), `${what}: the call names an allowed tool`, c.name);
    t.equal(c.status, "completed", `${what}: a finished call is completed`);
    t.ok(/^fc_/.test(c.id) && /^call_/.test(c.call_id), `${what}: item id fc_… and call_id call_…`, c);
    let args;
    try { args = JSON.parse(c.arguments); } catch { t.ok(false, `${what}: arguments are JSON`, c.arguments); continue; }
    const v = validators[c.name];
    if (v) t.ok(v(args), `${what}: arguments valid (Ajv)`, { args, errors: v.errors });
  }
}

function noThinkTags(r, what) {
  t.ok(!(r.output_text ?? "").includes("think>"), `${what}: no think tags in output_text`, r.output_text);
  for (const m of messages(r))
    for (const c of m.content) t.ok(!(c.text ?? "").includes("think>"), `${what}: no think tags in a message part`, c.text);
}

async function textFormats(client) {
  for (let seed = 1; seed <= 4; seed++) {
    const r = await client.responses.create({ ...NT, model: MODEL, input: "Profile?", max_output_tokens: 120, seed, text: PROFILE_FORMAT });
    t.equal(r.object, "response", "object");
    t.ok(/^resp_[0-9a-f]{32}$/.test(r.id), "response id", r.id);
    t.ok(r.constraint && r.constraint.cache, "the response carries the constraint report", r.constraint);
    t.equal(reasonings(r).length, 0, "thinking off: no reasoning item");
    t.equal(calls(r).length, 0, "no tools: no function_call item");
    if (!finished(r, "json_schema")) continue;
    t.equal(messages(r).length, 1, "json_schema: one message item");
    let doc;
    try { doc = JSON.parse(r.output_text); } catch { t.ok(false, "json_schema output_text parses", r.output_text); continue; }
    t.ok(profileValid(doc), "json_schema output_text is valid (Ajv)", { doc, errors: profileValid.errors });
    t.ok(r.constraint.complete && r.constraint.terminated, "a completed output is complete and terminated", r.constraint);
    t.ok(r.usage.output_tokens > 0 && r.usage.total_tokens === r.usage.input_tokens + r.usage.output_tokens, "usage adds up", r.usage);
  }
  for (let seed = 1; seed <= 3; seed++) {
    const r = await client.responses.create({
      ...NO_REASONING, model: MODEL, input: "Any JSON object", max_output_tokens: 60, seed, text: { format: { type: "json_object" } },
    });
    t.equal(reasonings(r).length, 0, "reasoning effort none: no reasoning item");
    if (!finished(r, "json_object")) continue;
    let doc;
    try { doc = JSON.parse(r.output_text); } catch { doc = undefined; }
    t.ok(doc !== null && typeof doc === "object" && !Array.isArray(doc), "json_object output_text is an object", r.output_text);
  }
}

async function toolChoices(client) {
  for (let seed = 1; seed <= 3; seed++) {
    const r = await client.responses.create({ ...NT, model: MODEL, input: "Weather?", max_output_tokens: 120, seed, tools: TOOLS, tool_choice: "required" });
    if (!finished(r, "required")) continue;
    t.ok(calls(r).length >= 1, "required: at least one function_call", r.output);
    checkCalls(r, ["get_weather", "get_time"], "required");
  }
  for (let seed = 1; seed <= 3; seed++) {
    const r = await client.responses.create({
      ...NT, model: MODEL, input: "Time?", max_output_tokens: 120, seed, tools: TOOLS, tool_choice: { type: "function", name: "get_time" },
    });
    if (!finished(r, "named")) continue;
    t.equal(calls(r).length, 1, "named: exactly one function_call");
    checkCalls(r, ["get_time"], "named");
  }
  for (let seed = 1; seed <= 2; seed++) {
    const r = await client.responses.create({
      ...NT, model: MODEL, input: "Time?", max_output_tokens: 120, seed, tools: TOOLS,
      tool_choice: { type: "allowed_tools", mode: "required", tools: [{ type: "function", name: "get_weather" }] },
    });
    if (!finished(r, "allowed_tools")) continue;
    t.ok(calls(r).length >= 1, "allowed_tools required: at least one call");
    checkCalls(r, ["get_weather"], "allowed_tools");
  }
  for (let seed = 1; seed <= 2; seed++) {
    const r = await client.responses.create({
      ...NT, model: MODEL, input: "Weather?", max_output_tokens: 120, seed, tools: TOOLS, tool_choice: "required", parallel_tool_calls: false,
    });
    t.equal(r.parallel_tool_calls, false, "parallel_tool_calls false is echoed");
    if (!finished(r, "parallel false")) continue;
    t.equal(calls(r).length, 1, "parallel_tool_calls false: exactly one call");
    checkCalls(r, ["get_weather", "get_time"], "parallel false");
  }
  for (let seed = 1; seed <= 3; seed++) {
    const r = await client.responses.create({ ...NT, model: MODEL, input: "Hi", max_output_tokens: 40, seed, tools: TOOLS, tool_choice: "none" });
    t.equal(calls(r).length, 0, "none: no function_call item", r.output);
    t.ok(!(r.output_text ?? "").includes("<tool_call>"), "none: no call syntax in output_text", r.output_text);
    t.equal(r.tool_choice, "none", "tool_choice is echoed");
  }
}

// Thinking, closed by the budget, comes back as a reasoning item and never leaks into output_text;
// the body after it keeps its constraint. Whether the random model opens thinking at all is its
// choice (the default template lets it), so the turns that opened it are counted and must exist.
async function thinking(client) {
  let opened = 0;
  for (const stream of [false, true]) {
    for (let seed = 1; seed <= 3; seed++) {
      const body = {
        model: MODEL, input: "Profile?", max_output_tokens: 120, seed, reasoning: { effort: "low" }, thinking_token_budget: 8, text: PROFILE_FORMAT,
      };
      const r = stream ? await client.responses.stream(body).finalResponse() : await client.responses.create(body);
      const what = `thinking (${stream ? "stream" : "whole"})`;
      noThinkTags(r, what);
      const rs = reasonings(r);
      t.ok(rs.length <= 1, `${what}: at most one reasoning item`, r.output);
      if (rs.length === 1) {
        opened++;
        t.equal(r.output[0].type, "reasoning", `${what}: the reasoning item comes first`);
        const parts = rs[0].content ?? [];
        t.ok(parts.length === 1 && parts[0].type === "reasoning_text" && parts[0].text.length > 0, `${what}: reasoning_text content`, rs[0]);
        t.ok(!parts.some((p) => p.text.includes("think>")), `${what}: no think tags in the reasoning text`, parts);
        t.ok(/^rs_/.test(rs[0].id), `${what}: reasoning item id`, rs[0].id);
        t.ok(r.usage.output_tokens_details.reasoning_tokens > 0, `${what}: reasoning tokens are reported`, r.usage);
        // The budget counts the thinking text; the block adds "<think>" and the forced "\n</think>\n\n"
        // (1 + 3 tokens in Qwen3's vocabulary).
        t.ok(r.usage.output_tokens_details.reasoning_tokens <= 8 + 4, `${what}: the budget bounds the reasoning tokens`, r.usage);
      } else {
        t.equal(r.usage.output_tokens_details.reasoning_tokens, 0, `${what}: no reasoning, no reasoning tokens`);
      }
      if (!finished(r, what)) continue;
      let doc;
      try { doc = JSON.parse(r.output_text); } catch { t.ok(false, `${what}: output_text after thinking parses`, r.output_text); continue; }
      t.ok(profileValid(doc), `${what}: output_text after thinking is valid (Ajv)`, { doc, errors: profileValid.errors });
    }
  }
  t.ok(opened > 0, "some thinking turns opened thinking (else the checks above test nothing)", { opened });
  t.note("thinking_opened", opened);
}

async function extension(client) {
  for (let seed = 1; seed <= 3; seed++) {
    const r = await client.responses.create({
      ...NT, model: MODEL, input: "Pick", max_output_tokens: 20, seed, structured_outputs: { choice: ["yes", "no", "maybe"] },
    });
    if (!finished(r, "choice")) continue;
    t.ok(["yes", "no", "maybe"].includes(r.output_text), "choice output is one of the choices", r.output_text);
  }
  for (let seed = 1; seed <= 3; seed++) {
    const body = { ...NT, model: MODEL, input: "Letters", max_output_tokens: 30, seed, structured_outputs: { regex: "[a-c]{1,20}" } };
    const r = await client.responses.create(body);
    const s = await client.responses.stream(body).finalResponse();
    t.equal(s.output_text, r.output_text, "regex: the stream rebuilds the non-streamed output_text");
    if (!finished(r, "regex")) continue;
    t.ok(/^[a-c]{1,20}$/.test(r.output_text), "regex output matches", r.output_text);
  }
}

// The SDK flow of a tool loop: the first response's output items (reasoning and function_call, as
// returned) go back as input with a function_call_output each. The oracle is the Chat Completions
// mapping: the same conversation written as Chat messages must render to the same prompt, so
// input_tokens equals Chat's prompt_tokens.
async function toolLoop(client) {
  let withReasoning = 0;
  for (const seed of [1, 2, 3]) {
    const input = [{ role: "user", content: "Time?" }];
    const first = await client.responses.create({ model: MODEL, input, tools: TOOLS, tool_choice: { type: "function", name: "get_time" }, max_output_tokens: 60, seed, thinking_token_budget: 4 });
    if (!finished(first, "tool loop")) continue;
    const fcs = calls(first);
    const rs = reasonings(first)[0];
    if (rs) withReasoning++;
    const outputs = fcs.map((fc) => ({ type: "function_call_output", call_id: fc.call_id, output: "12:00 CET" }));
    const second = await client.responses.create({ ...NT, model: MODEL, input: [...input, ...first.output, ...outputs], tools: TOOLS, max_output_tokens: 1, seed });
    t.equal(second.object, "response", "tool loop: the echoed output items are accepted as input");
    const chat = await client.chat.completions.create({
      ...NT, model: MODEL, max_tokens: 1, seed,
      tools: TOOLS.map(({ type, ...fn }) => ({ type, function: fn })),
      messages: [
        ...input,
        { role: "assistant", content: "", ...(rs ? { reasoning_content: rs.content[0].text } : {}),
          tool_calls: fcs.map((fc) => ({ id: fc.call_id, type: "function", function: { name: fc.name, arguments: fc.arguments } })) },
        ...fcs.map((fc) => ({ role: "tool", tool_call_id: fc.call_id, content: "12:00 CET" })),
      ],
    });
    t.equal(second.usage.input_tokens, chat.usage.prompt_tokens, `tool loop seed ${seed}: the echoed items render as the same Chat conversation`);
  }
  t.note("tool_loop_with_reasoning", withReasoning);
}

// What a response says, without the ids that differ per request.
function comparable(r) {
  const item = (i) => {
    if (i.type === "message") return { type: i.type, status: i.status, role: i.role, content: i.content.map((c) => ({ type: c.type, text: c.text })) };
    if (i.type === "function_call") return { type: i.type, status: i.status, name: i.name, arguments: i.arguments };
    if (i.type === "reasoning") return { type: i.type, summary: i.summary, content: (i.content ?? []).map((c) => ({ type: c.type, text: c.text })) };
    return i;
  };
  const c = r.constraint ?? {};
  return {
    status: r.status, incomplete_details: r.incomplete_details, output: r.output.map(item), output_text: r.output_text,
    usage: { ...r.usage, input_tokens_details: undefined },  // a repeated prompt may be served from the prefix cache
    constraint: { branch: c.branch, complete: c.complete, terminated: c.terminated },
  };
}

function idsFollowTheResponse(r, what) {
  const hex = r.id.slice("resp_".length);
  for (const i of r.output) {
    const prefix = { message: "msg_", function_call: "fc_", reasoning: "rs_" }[i.type];
    t.ok(prefix && i.id.startsWith(prefix + hex), `${what}: item ids carry the response id`, { response: r.id, item: i.id });
  }
}

async function streamsMatchNonStreamed(client) {
  const bodies = [
    ...[11, 12, 13].map((seed) => ({ ...NT, model: MODEL, input: "Profile?", max_output_tokens: 80, seed, text: PROFILE_FORMAT })),
    ...[21, 22].map((seed) => ({ ...NT, model: MODEL, input: "Weather?", max_output_tokens: 120, seed, tools: TOOLS, tool_choice: "required" })),
    { ...NT, model: MODEL, input: "Say", max_output_tokens: 16, seed: 31 },
    // Thinking without a budget: cut off inside the reasoning item.
    { model: MODEL, input: "Profile?", max_output_tokens: 8, seed: 1, text: PROFILE_FORMAT },
  ];
  for (const body of bodies) {
    const whole = await client.responses.create(body);
    const stream = client.responses.stream(body);
    let deltas = "";
    let args = "";
    const types = [];
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === "response.output_text.delta") deltas += event.delta;
      if (event.type === "response.function_call_arguments.delta") args += event.delta;
    }
    const final = await stream.finalResponse();
    t.equal(comparable(final), comparable(whole), `seed ${body.seed}: the SDK's stream helper rebuilds the non-streamed response`);
    t.ok(final.id !== whole.id, "each request gets its own response id", final.id);
    idsFollowTheResponse(final, "streamed");
    idsFollowTheResponse(whole, "non-streamed");
    t.equal(deltas, messages(whole).flatMap((m) => m.content.map((c) => c.text)).join(""), "output_text deltas concatenate to the message text");
    t.equal(args, calls(whole).map((c) => c.arguments).join(""), "argument deltas concatenate to the calls' arguments");
    t.equal(types[0], "response.created", "the SDK sees response.created first");
    t.ok(["response.completed", "response.incomplete"].includes(types[types.length - 1]), "the SDK sees the terminal event last", types.slice(-1));
  }
}

// The wire itself: event names, sequence numbers, item announcements, the terminal event.
async function rawFraming(base) {
  let argumentsChecked = 0;
  const bodies = [
    { ...NT, input: "Weather?", max_output_tokens: 120, seed: 41, tools: TOOLS, tool_choice: "required" },
    { ...NT, input: "Profile?", max_output_tokens: 80, seed: 42, text: PROFILE_FORMAT },
    { input: "Profile?", max_output_tokens: 60, seed: 43, thinking_token_budget: 6, text: PROFILE_FORMAT },
    { ...NT, input: "Talk", max_output_tokens: 6, seed: 44 },
    { input: "Profile?", max_output_tokens: 8, seed: 1, text: PROFILE_FORMAT },
  ];
  for (const body of bodies) {
    const what = `raw seed ${body.seed}`;
    const res = await fetch(`${base}/v1/responses`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${KEY}` },
      body: JSON.stringify({ ...body, stream: true }),
    });
    t.equal(res.status, 200, `${what}: stream status`);
    t.ok((res.headers.get("content-type") ?? "").startsWith("text/event-stream"), `${what}: content type`, res.headers.get("content-type"));
    const { text, events } = await rawSse(res);
    t.ok(text.endsWith("\n\n") && !text.includes("[DONE]"), `${what}: Responses streams end after the terminal event, with no [DONE]`, text.slice(-60));
    let data;
    try { data = events.map((e) => JSON.parse(e.data)); } catch (e) { t.ok(false, `${what}: every data line is JSON`, String(e)); continue; }
    t.ok(events.every((e) => e.event !== null && e.event === data[events.indexOf(e)].type), `${what}: every event: line equals data.type`,
      events.map((e, i) => [e.event, data[i].type]).filter(([a, b]) => a !== b));
    t.ok(events.every((e) => e.lines.every((l) => l.startsWith("event: ") || l.startsWith("data: "))), `${what}: only event and data lines`);
    t.equal(data.map((d) => d.sequence_number), data.map((_, i) => i), `${what}: sequence_number counts from 0, one by one`);
    t.equal(data[0]?.type, "response.created", `${what}: the first event is response.created`);
    t.equal(data[1]?.type, "response.in_progress", `${what}: then response.in_progress`);
    t.ok(data[0]?.response?.status === "in_progress" && data[0].response.output.length === 0, `${what}: created carries the response in progress`, data[0]);
    const announced = new Map();
    const closed = new Set();
    let orderOk = true;
    for (const d of data) {
      if (d.type === "response.output_item.added") {
        if (announced.has(d.item.id)) orderOk = false;
        announced.set(d.item.id, d.output_index);
        // (Reasoning items have no status, as OpenAI's own.)
        if (d.item.type !== "reasoning") t.equal(d.item.status, "in_progress", `${what}: an added ${d.item.type} item is in progress`);
      } else if ("item_id" in d) {
        if (!announced.has(d.item_id) || closed.has(d.item_id) || announced.get(d.item_id) !== d.output_index) orderOk = false;
      } else if (d.type === "response.output_item.done") {
        if (!announced.has(d.item.id) || closed.has(d.item.id)) orderOk = false;
        closed.add(d.item.id);
      }
    }
    t.ok(orderOk, `${what}: every item_id was announced by output_item.added, and used before its output_item.done`, data.map((d) => d.type));
    t.equal(closed.size, announced.size, `${what}: every announced item is done`);
    const last = data[data.length - 1];
    t.ok(["response.completed", "response.incomplete"].includes(last.type), `${what}: the last event is terminal`, last.type);
    // The report is null only when nothing was enforced (free text, thinking off).
    const enforced = body.text || body.tools || body.thinking_token_budget;
    t.ok(last.response && "constraint" in last.response && (last.response.constraint !== null || !enforced),
      `${what}: the terminal response carries constraint`, last.response);
    if (enforced && last.response.status === "completed")
      t.ok(last.response.constraint?.complete === true && last.response.constraint.terminated === true, `${what}: a finished output is complete and terminated`, last.response.constraint);
    t.equal(last.response.output.map((i) => i.id), [...announced.keys()], `${what}: the final output lists the announced items in order`);
    t.equal(data.filter((d) => d.type === "response.completed" || d.type === "response.incomplete").length, 1, `${what}: one terminal event`);
    const textDone = data.filter((d) => d.type === "response.output_text.done").map((d) => d.text).join("");
    const textDeltas = data.filter((d) => d.type === "response.output_text.delta").map((d) => d.delta).join("");
    t.equal(textDeltas, textDone, `${what}: output_text deltas concatenate to the done text`);
    for (const d of data.filter((x) => x.type === "response.function_call_arguments.done")) {
      const deltas = data.filter((x) => x.type === "response.function_call_arguments.delta" && x.item_id === d.item_id).map((x) => x.delta).join("");
      argumentsChecked++;
      t.equal(deltas, d.arguments, `${what}: argument deltas concatenate to the done arguments`);
      let args;
      try { args = JSON.parse(d.arguments); } catch { t.ok(false, `${what}: streamed arguments parse`, d.arguments); continue; }
      t.ok(validators[d.name]?.(args), `${what}: streamed arguments valid (Ajv)`, { name: d.name, args });
    }
    if (last.response.status !== "completed") cutOff++;
  }
  t.ok(argumentsChecked > 0, "the raw streams carried some function calls (else those checks test nothing)", { argumentsChecked });
}

async function errors(client, base) {
  const post = (path, body, headers = {}) => fetch(`${base}${path}`, {
    method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${KEY}`, ...headers }, body,
  });
  const openAiShape = (j) => j && j.error && typeof j.error.message === "string" && j.error.message.length > 0 &&
    typeof j.error.type === "string" && "param" in j.error && "code" in j.error;
  let r = await post("/v1/responses", "{\"input\": [");
  let j = await r.json();
  t.equal(r.status, 400, "malformed JSON is a 400");
  t.ok(openAiShape(j), "malformed JSON: OpenAI error shape", j);
  try {
    await client.responses.create({
      ...NT, model: MODEL, input: "x",
      text: { format: { type: "json_schema", name: "bad", schema: { type: "object", properties: { age: { type: "integer", minimum: 5, maximum: 1 } }, required: ["age"] } } },
    });
    t.ok(false, "an unsatisfiable schema is rejected");
  } catch (e) {
    t.equal(e.status, 400, "invalid schema: 400");
    t.ok(typeof e.param === "string" && e.param.startsWith("text.format.schema.properties.age"), "invalid schema: param points into text.format.schema", e.param);
    t.ok(openAiShape({ error: e.error }), "invalid schema: OpenAI error shape", e.error);
  }
  try {
    await client.responses.create({
      ...NT, model: MODEL, input: "x", tool_choice: "required",
      tools: [{ type: "function", name: "f", parameters: { type: "object", properties: { k: { type: "string", minLength: 4, maxLength: 2 } }, required: ["k"] } }],
    });
    t.ok(false, "a required call with an unsatisfiable strict tool schema is rejected");
  } catch (e) {
    t.equal(e.status, 400, "unsatisfiable required tool: 400");
    t.ok(openAiShape({ error: e.error }), "unsatisfiable required tool: OpenAI error shape", e.error);
    // Not yet located: the Engine reports the empty chat language with param null (see the report).
    t.note("unsatisfiable_tool_param", e.param ?? null);
  }
  try {
    await client.responses.create({ ...NT, model: "gpt-4o", input: "x", max_output_tokens: 1 });
    t.ok(false, "an unknown model is rejected");
  } catch (e) {
    t.equal(e.status, 404, "unknown model: 404");
    t.equal(e.code, "model_not_found", "unknown model: code");
    t.ok(openAiShape({ error: e.error }), "unknown model: OpenAI error shape", e.error);
  }
  for (const [body, param] of [
    [{ ...NT, input: "x", previous_response_id: "resp_1" }, "previous_response_id"],
    [{ ...NT, input: "x", tools: [{ type: "web_search" }] }, "tools[0].type"],
    [{ ...NT, input: "x", max_tokens: 5 }, "max_tokens"],
    [{ ...NT, input: "x", text: { format: { type: "json_object" } }, structured_outputs: { regex: "a" } }, "structured_outputs"],
  ]) {
    r = await post("/v1/responses", JSON.stringify(body));
    j = await r.json();
    t.equal(r.status, 400, `${param}: 400`);
    t.ok(openAiShape(j) && (j.error.param ?? "").startsWith(param), `${param}: the error names it`, j);
  }
  const wrongKey = new OpenAI({ baseURL: `${base}/v1`, apiKey: "wrong", maxRetries: 0 });
  try {
    await wrongKey.responses.create({ ...NT, model: MODEL, input: "x", max_output_tokens: 1 });
    t.ok(false, "a wrong key is rejected");
  } catch (e) {
    t.equal(e.status, 401, "wrong key: 401");
    t.ok(openAiShape({ error: e.error }), "wrong key: OpenAI error shape", e.error);
  }
  r = await fetch(`${base}/v1/responses`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ ...NT, input: "x" }) });
  j = await r.json();
  t.equal(r.status, 401, "missing key: 401");
  t.ok(openAiShape(j), "missing key: OpenAI error shape", j);
  // A stream request rejected before it opens is a plain JSON error, not an event stream.
  r = await post("/v1/responses", JSON.stringify({ ...NT, input: "x", stream: true, top_p: 0 }));
  j = await r.json();
  t.equal(r.status, 400, "a rejected stream request: 400");
  t.ok(openAiShape(j) && j.error.param === "top_p", "a rejected stream request: OpenAI error shape naming the field", j);
}

const server = await startServer(ninfer, ["--api-key", KEY, "--max-batch", "8", "--threads", "1"]);
try {
  const client = new OpenAI({ baseURL: `${server.base}/v1`, apiKey: KEY, maxRetries: 0 });
  await textFormats(client);
  await toolChoices(client);
  await thinking(client);
  await extension(client);
  await toolLoop(client);
  await streamsMatchNonStreamed(client);
  await rawFraming(server.base);
  await errors(client, server.base);
  const logs = server.logs.filter((l) => l.event === "request" && l.endpoint === "/v1/responses");
  t.ok(logs.length > 0 && logs.every((l) => "status" in l), "one JSON log line per Responses request", logs.slice(0, 2));
} finally {
  await server.stop("SIGKILL");
}
t.note("cut_off", cutOff);
process.exit(t.report() ? 0 : 1);
