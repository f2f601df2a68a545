// Drives a real `ninfer serve` through the Anthropic Messages API (POST /v1/messages) with the official
// `@anthropic-ai/sdk`, streaming and not, and checks what comes back with independent oracles: Ajv for
// output_config.format json_schema outputs and tool_use inputs, regular expressions for the extension
// constraints, JSON.parse for the streamed input_json_delta fragments, and the raw SSE framing read
// with fetch (what the SDK's accumulator would let through). Outputs cut off by max_tokens
// (stop_reason "max_tokens") are counted apart, never as a pass or as a failure of the constraint.
// Usage: node anthropic_sdk_test.mjs NINFER_BINARY
import Anthropic from "@anthropic-ai/sdk";
import Ajv2020 from "ajv/dist/2020.js";
import { startServer, Checks, rawSse } from "./harness.mjs";
import { PROFILE, WEATHER, TIME } from "./schemas.mjs";

const ninfer = process.argv[2];
const KEY = "sk-ant-ninfer-test";
const MODEL = "ninfer-default";
const ajv = new Ajv2020({ strict: false });
const t = new Checks("anthropic_sdk");

const TOOLS = [
  { name: "get_weather", description: "Weather in a city", input_schema: WEATHER, strict: true },
  { name: "get_time", description: "Time in a zone", input_schema: TIME, strict: true },
];
const validators = { get_weather: ajv.compile(WEATHER), get_time: ajv.compile(TIME) };
const profileValid = ajv.compile(PROFILE);
const PROFILE_FORMAT = { format: { type: "json_schema", schema: PROFILE } };
// Anthropic's own switch: thinking is off unless the request enables it (a random model never
// closes thinking by itself). Stated explicitly so that the tests do not lean on the default.
const NT = { thinking: { type: "disabled" } };
const user = (text) => [{ role: "user", content: text }];
let cutOff = 0;

const blocks = (m, type) => m.content.filter((b) => b.type === type);
const text = (m) => blocks(m, "text").map((b) => b.text).join("");

// Counts a cut-off apart and says whether the message finished.
function finished(m, what) {
  t.ok(["end_turn", "max_tokens", "tool_use", "stop_sequence"].includes(m.stop_reason), `${what}: a known stop_reason`, m.stop_reason);
  if (m.stop_reason !== "max_tokens") return true;
  t.equal(m.usage.output_tokens > 0, true, `${what}: a cut-off message reports its tokens`);
  cutOff++;
  return false;
}

function checkToolUses(m, allowed, what) {
  for (const b of blocks(m, "tool_use")) {
    t.ok(allowed.includes(b.name), `${what}: tool_use names an allowed tool`, b.name);
    t.ok(/^toolu_[0-9A-Za-z]+$/.test(b.id), `${what}: tool_use id`, b.id);
    const v = validators[b.name];
    t.ok(b.input !== null && typeof b.input === "object" && !Array.isArray(b.input), `${what}: input is an object`, b.input);
    if (v) t.ok(v(b.input), `${what}: input valid (Ajv)`, { input: b.input, errors: v.errors });
  }
}

function noThinkTags(m, what) {
  for (const b of blocks(m, "text")) t.ok(!b.text.includes("think>"), `${what}: no think tags in a text block`, b.text);
  for (const b of blocks(m, "thinking")) t.ok(!b.thinking.includes("think>"), `${what}: no think tags in a thinking block`, b.thinking);
}

async function outputFormat(client) {
  for (let seed = 1; seed <= 4; seed++) {
    const m = await client.messages.create({ ...NT, model: MODEL, messages: user("Profile?"), max_tokens: 120, seed, output_config: PROFILE_FORMAT });
    t.equal(m.type, "message", "type");
    t.equal(m.role, "assistant", "role");
    t.ok(/^msg_[0-9a-f]{32}$/.test(m.id), "message id", m.id);
    t.ok(m.constraint && m.constraint.cache, "the message carries the constraint report", m.constraint);
    t.equal(blocks(m, "thinking").length, 0, "thinking disabled: no thinking block");
    t.equal(blocks(m, "tool_use").length, 0, "no tools: no tool_use block");
    if (!finished(m, "json_schema")) continue;
    t.equal(m.stop_reason, "end_turn", "json_schema: end_turn");
    t.equal(blocks(m, "text").length, 1, "json_schema: one text block");
    let doc;
    try { doc = JSON.parse(text(m)); } catch { t.ok(false, "json_schema text parses", text(m)); continue; }
    t.ok(profileValid(doc), "json_schema text is valid (Ajv)", { doc, errors: profileValid.errors });
    t.ok(m.constraint.complete && m.constraint.terminated, "a finished output is complete and terminated", m.constraint);
  }
  // The deprecated beta name of the same field.
  const m = await client.messages.create({ model: MODEL, messages: user("Profile?"), max_tokens: 120, seed: 5, output_format: PROFILE_FORMAT.format });
  if (finished(m, "output_format")) {
    let doc;
    try { doc = JSON.parse(text(m)); } catch { doc = undefined; }
    t.ok(doc !== undefined && profileValid(doc), "output_format text is valid (Ajv)", text(m));
  }
}

async function toolChoices(client) {
  for (let seed = 1; seed <= 3; seed++) {
    const m = await client.messages.create({ ...NT, model: MODEL, messages: user("Weather?"), max_tokens: 120, seed, tools: TOOLS, tool_choice: { type: "any" } });
    if (!finished(m, "any")) continue;
    t.equal(m.stop_reason, "tool_use", "any: stops with tool_use");
    t.ok(blocks(m, "tool_use").length >= 1, "any: at least one tool_use", m.content);
    checkToolUses(m, ["get_weather", "get_time"], "any");
  }
  for (let seed = 1; seed <= 3; seed++) {
    const m = await client.messages.create({
      ...NT, model: MODEL, messages: user("Time?"), max_tokens: 120, seed, tools: TOOLS, tool_choice: { type: "tool", name: "get_time" },
    });
    if (!finished(m, "tool")) continue;
    t.equal(blocks(m, "tool_use").length, 1, "tool(name): exactly one tool_use");
    checkToolUses(m, ["get_time"], "tool(name)");
  }
  for (let seed = 1; seed <= 3; seed++) {
    const m = await client.messages.create({
      ...NT, model: MODEL, messages: user("Weather?"), max_tokens: 120, seed, tools: TOOLS, tool_choice: { type: "any", disable_parallel_tool_use: true },
    });
    if (!finished(m, "disable_parallel")) continue;
    t.equal(blocks(m, "tool_use").length, 1, "disable_parallel_tool_use: exactly one tool_use", m.content);
    checkToolUses(m, ["get_weather", "get_time"], "disable_parallel");
  }
  for (let seed = 1; seed <= 3; seed++) {
    const m = await client.messages.create({ ...NT, model: MODEL, messages: user("Hi"), max_tokens: 40, seed, tools: TOOLS, tool_choice: { type: "none" } });
    t.equal(blocks(m, "tool_use").length, 0, "none: no tool_use", m.content);
    t.ok(m.stop_reason !== "tool_use", "none: never stops with tool_use", m.stop_reason);
    t.ok(!text(m).includes("<tool_call>"), "none: no call syntax in the text", text(m));
  }
}

// Thinking, closed by its budget, comes back as a thinking block and never leaks into the text;
// the body after it keeps its constraint. The default template lets the model choose whether to
// open thinking, so the turns that opened it are counted and must exist.
async function thinking(client) {
  let opened = 0;
  for (const stream of [false, true]) {
    for (let seed = 1; seed <= 3; seed++) {
      const body = { model: MODEL, messages: user("Profile?"), max_tokens: 120, seed, thinking: { type: "enabled", budget_tokens: 8 }, output_config: PROFILE_FORMAT };
      const m = stream ? await client.messages.stream(body).finalMessage() : await client.messages.create(body);
      const what = `thinking (${stream ? "stream" : "whole"})`;
      noThinkTags(m, what);
      const th = blocks(m, "thinking");
      t.ok(th.length <= 1, `${what}: at most one thinking block`, m.content);
      if (th.length === 1) {
        opened++;
        t.equal(m.content[0].type, "thinking", `${what}: the thinking block comes first`);
        t.ok(th[0].thinking.length > 0, `${what}: the thinking block has text`, th[0]);
        t.equal(th[0].signature, "", `${what}: signature is empty`);
      }
      if (!finished(m, what)) continue;
      let doc;
      try { doc = JSON.parse(text(m)); } catch { t.ok(false, `${what}: text after thinking parses`, m.content); continue; }
      t.ok(profileValid(doc), `${what}: text after thinking is valid (Ajv)`, { doc, errors: profileValid.errors });
    }
  }
  t.ok(opened > 0, "some thinking turns opened thinking (else the checks above test nothing)", { opened });
  t.note("thinking_opened", opened);
}

async function extension(client) {
  for (let seed = 1; seed <= 3; seed++) {
    const m = await client.messages.create({ ...NT, model: MODEL, messages: user("Pick"), max_tokens: 20, seed, structured_outputs: { choice: ["yes", "no", "maybe"] } });
    if (!finished(m, "choice")) continue;
    t.ok(["yes", "no", "maybe"].includes(text(m)), "choice output is one of the choices", text(m));
  }
  for (let seed = 1; seed <= 3; seed++) {
    const body = { ...NT, model: MODEL, messages: user("Letters"), max_tokens: 30, seed, structured_outputs: { regex: "[a-c]{1,20}" } };
    const m = await client.messages.create(body);
    const s = await client.messages.stream(body).finalMessage();
    t.equal(text(s), text(m), "regex: the stream rebuilds the non-streamed text");
    if (!finished(m, "regex")) continue;
    t.ok(/^[a-c]{1,20}$/.test(text(m)), "regex output matches", text(m));
  }
}

// stop_sequences on free text: a stop ends the turn before the sequence, which the message names.
async function stopSequences(client) {
  let stopped = 0;
  for (const seed of [1, 2, 3]) {
    const body = { ...NT, model: MODEL, messages: user("Talk"), max_tokens: 40, seed, stop_sequences: [" ", "\n"], system: [{ type: "text", text: "Be brief." }], metadata: { user_id: "u1" } };
    const m = await client.messages.create(body);
    const s = await client.messages.stream(body).finalMessage();
    t.equal(comparable(s), comparable(m), `stop seed ${seed}: the stream agrees`);
    if (m.stop_reason === "max_tokens") { cutOff++; continue; }
    t.equal(m.stop_reason, "stop_sequence", `stop seed ${seed}: stop_reason`);
    t.ok([" ", "\n"].includes(m.stop_sequence), `stop seed ${seed}: stop_sequence names the sequence`, m.stop_sequence);
    t.ok(!text(m).includes(" ") && !text(m).includes("\n"), `stop seed ${seed}: the text ends before the sequence`, text(m));
    stopped++;
  }
  t.ok(stopped > 0, "some outputs hit a stop sequence (else the checks above test nothing)", { stopped });
}

// The SDK flow of a tool loop: the first message's content (thinking and tool_use blocks, as
// returned) goes back as the assistant turn, then a user turn of tool_result blocks. The oracle is
// the Chat Completions mapping: the same conversation written as Chat messages must render to the
// same prompt, so input_tokens equals Chat's prompt_tokens.
async function toolLoop(client, openAiBase) {
  let withThinking = 0;
  for (const seed of [1, 2, 3]) {
    const messages = user("Time?");
    const first = await client.messages.create({
      model: MODEL, messages, tools: TOOLS, tool_choice: { type: "tool", name: "get_time" }, max_tokens: 60, seed, thinking: { type: "enabled", budget_tokens: 4 },
    });
    if (!finished(first, "tool loop")) continue;
    const uses = blocks(first, "tool_use");
    const th = blocks(first, "thinking")[0];
    if (th) withThinking++;
    const second = await client.messages.create({
      ...NT, model: MODEL, tools: TOOLS, max_tokens: 1, seed,
      messages: [...messages, { role: "assistant", content: first.content },
        { role: "user", content: uses.map((u) => ({ type: "tool_result", tool_use_id: u.id, content: "12:00 CET" })) }],
    });
    t.equal(second.type, "message", "tool loop: the echoed content blocks are accepted");
    const res = await fetch(`${openAiBase}/v1/chat/completions`, {
      method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${KEY}` },
      body: JSON.stringify({
        chat_template_kwargs: { enable_thinking: false }, max_tokens: 1, seed,
        tools: TOOLS.map((x) => ({ type: "function", function: { name: x.name, description: x.description, parameters: x.input_schema, strict: x.strict } })),
        messages: [
          ...messages,
          { role: "assistant", content: "", ...(th ? { reasoning_content: th.thinking } : {}),
            tool_calls: uses.map((u) => ({ id: u.id, type: "function", function: { name: u.name, arguments: JSON.stringify(u.input) } })) },
          ...uses.map((u) => ({ role: "tool", tool_call_id: u.id, content: "12:00 CET" })),
        ],
      }),
    });
    const chat = await res.json();
    t.equal(promptTokens(second.usage), chat.usage?.prompt_tokens, `tool loop seed ${seed}: the echoed blocks render as the same Chat conversation`);
  }
  t.note("tool_loop_with_thinking", withThinking);
}

// The whole prompt: Anthropic splits it into input_tokens, cache_read_input_tokens (the prefix
// cache's hits) and cache_creation_input_tokens (always 0 here).
const promptTokens = (u) => u.input_tokens + (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0);

// What a message says, without the ids that differ per request, nor how much of its prompt the prefix
// cache held (a repeated request finds more of it there).
const comparable = (m) => ({
  role: m.role, model: m.model, stop_reason: m.stop_reason, stop_sequence: m.stop_sequence,
  usage: { ...m.usage, input_tokens: promptTokens(m.usage), cache_read_input_tokens: undefined },
  content: m.content.map((b) => (b.type === "tool_use" ? { type: b.type, name: b.name, input: b.input } : b)),
});

async function streamsMatchNonStreamed(client) {
  const bodies = [
    ...[11, 12, 13].map((seed) => ({ ...NT, model: MODEL, messages: user("Profile?"), max_tokens: 80, seed, output_config: PROFILE_FORMAT })),
    ...[21, 22].map((seed) => ({ ...NT, model: MODEL, messages: user("Weather?"), max_tokens: 120, seed, tools: TOOLS, tool_choice: { type: "any" } })),
    { ...NT, model: MODEL, messages: user("Say"), max_tokens: 16, seed: 31 },
    { model: MODEL, messages: user("Profile?"), max_tokens: 60, seed: 32, thinking: { type: "enabled", budget_tokens: 6 }, output_config: PROFILE_FORMAT },
    // Thinking without a budget (adaptive: the template's default): cut off inside the thinking block.
    { model: MODEL, messages: user("Profile?"), max_tokens: 8, seed: 1, thinking: { type: "adaptive" }, output_config: PROFILE_FORMAT },
  ];
  for (const body of bodies) {
    const whole = await client.messages.create(body);
    const stream = client.messages.stream(body);
    let deltas = "";
    stream.on("text", (delta) => { deltas += delta; });
    const final = await stream.finalMessage();
    t.equal(comparable(final), comparable(whole), `seed ${body.seed}: the SDK's finalMessage equals the non-streamed message`);
    // The streamed request repeats the non-streamed one's prompt; with the tool definitions it is
    // longer than one 16-token block of the prefix cache, so part of it is read from there.
    if (body.tools) {
      const u = final.usage;
      t.ok(u.cache_read_input_tokens > 0 && u.input_tokens > 0 && u.cache_creation_input_tokens === 0,
        `seed ${body.seed}: the repeated prompt is partly read from the prefix cache`, u);
    }
    t.ok(final.id !== whole.id, "each request gets its own message id", final.id);
    t.equal(deltas, text(whole), `seed ${body.seed}: text deltas concatenate to the text`);
  }
}

// The wire itself: named events, block bookkeeping, usage, the constraint on message_stop, and the
// tool_use inputs rebuilt from their fragments by a strict JSON parser.
async function rawFraming(base, client) {
  let toolUses = 0;
  const bodies = [
    { ...NT, messages: user("Weather?"), max_tokens: 160, seed: 41, tools: TOOLS, tool_choice: { type: "any" } },
    { ...NT, messages: user("Weather?"), max_tokens: 160, seed: 45, tools: TOOLS, tool_choice: { type: "tool", name: "get_weather" } },
    { ...NT, messages: user("Profile?"), max_tokens: 80, seed: 42, output_config: PROFILE_FORMAT },
    { messages: user("Profile?"), max_tokens: 60, seed: 43, thinking: { type: "enabled", budget_tokens: 6 }, output_config: PROFILE_FORMAT },
    { ...NT, messages: user("Talk"), max_tokens: 6, seed: 44 },
    { messages: user("Profile?"), max_tokens: 8, seed: 1, thinking: { type: "adaptive" }, output_config: PROFILE_FORMAT },
  ];
  for (const body of bodies) {
    const what = `raw seed ${body.seed}`;
    const whole = await client.messages.create({ model: MODEL, ...body });
    const res = await fetch(`${base}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": KEY, "anthropic-version": "2023-06-01" },
      body: JSON.stringify({ model: MODEL, ...body, stream: true }),
    });
    t.equal(res.status, 200, `${what}: stream status`);
    t.ok((res.headers.get("content-type") ?? "").startsWith("text/event-stream"), `${what}: content type`, res.headers.get("content-type"));
    const { events } = await rawSse(res);
    let data;
    try { data = events.map((e) => JSON.parse(e.data)); } catch (e) { t.ok(false, `${what}: every data line is JSON`, String(e)); continue; }
    t.ok(events.every((e, i) => e.event !== null && e.event === data[i].type), `${what}: every event: line equals data.type`,
      events.map((e, i) => [e.event, data[i].type]).filter(([a, b]) => a !== b));
    t.equal(data[0]?.type, "message_start", `${what}: message_start first`);
    t.ok(data[0]?.message?.content?.length === 0 && data[0].message.usage.output_tokens === 0, `${what}: message_start carries the empty message`, data[0]);
    t.equal(data[0]?.message?.usage?.input_tokens, promptTokens(whole.usage), `${what}: message_start counts the whole prompt`);
    const last = data[data.length - 1];
    t.equal(last.type, "message_stop", `${what}: message_stop last`);
    const enforced = body.output_config || body.tools || body.thinking?.type === "enabled";
    t.ok("constraint" in last && (last.constraint !== null || !enforced), `${what}: message_stop carries constraint`, last);
    if (enforced && whole.stop_reason !== "max_tokens")
      t.ok(last.constraint?.complete === true && last.constraint.terminated === true, `${what}: a finished output is complete and terminated`, last.constraint);
    const md = data.filter((d) => d.type === "message_delta");
    t.equal(md.length, 1, `${what}: one message_delta`);
    t.equal(data[data.length - 2]?.type, "message_delta", `${what}: message_delta just before message_stop`);
    t.ok(md[0]?.usage && md[0].usage.output_tokens === whole.usage.output_tokens, `${what}: message_delta carries the usage`, { delta: md[0], whole: whole.usage });
    t.equal(md[0]?.delta?.stop_reason, whole.stop_reason, `${what}: message_delta carries the stop reason`);
    // Blocks: started, delta'd and stopped in order, one open at a time, indices from 0.
    let open = null;
    let next = 0;
    let orderOk = true;
    const rebuilt = [];
    for (const d of data) {
      if (d.type === "content_block_start") {
        if (open !== null || d.index !== next) orderOk = false;
        open = d.index;
        rebuilt[d.index] = { block: d.content_block, json: "", text: "", thinking: "" };
      } else if (d.type === "content_block_delta") {
        if (d.index !== open) { orderOk = false; continue; }
        const r = rebuilt[d.index];
        if (d.delta.type === "input_json_delta" && r.block.type === "tool_use") r.json += d.delta.partial_json;
        else if (d.delta.type === "text_delta" && r.block.type === "text") r.text += d.delta.text;
        else if (d.delta.type === "thinking_delta" && r.block.type === "thinking") r.thinking += d.delta.thinking;
        else orderOk = false;
      } else if (d.type === "content_block_stop") {
        if (d.index !== open) orderOk = false;
        open = null;
        next++;
      }
    }
    t.ok(orderOk && open === null, `${what}: blocks start, change and stop in order, one at a time`, data.map((d) => `${d.type}:${d.index ?? ""}`));
    t.equal(rebuilt.length, whole.content.length, `${what}: as many blocks as the non-streamed message`);
    rebuilt.forEach((r, i) => {
      const w = whole.content[i];
      if (!w) return;
      t.equal(r.block.type, w.type, `${what}: block ${i} has the non-streamed type`);
      if (w.type === "tool_use") {
        t.ok(r.block.name === w.name && typeof r.block.id === "string" && r.block.id.startsWith("toolu_"), `${what}: tool_use start names the tool`, r.block);
        let input;
        try { input = JSON.parse(r.json); } catch { t.ok(false, `${what}: the input_json_delta fragments parse strictly`, r.json); return; }
        toolUses++;
        t.equal(input, w.input, `${what}: the parsed fragments equal the final input`);
        t.ok(validators[w.name]?.(input), `${what}: streamed input valid (Ajv)`, input);
      } else if (w.type === "text") {
        t.equal(r.text, w.text, `${what}: text deltas rebuild the text block`);
      } else if (w.type === "thinking") {
        t.equal(r.thinking, w.thinking, `${what}: thinking deltas rebuild the thinking block`);
      }
    });
    if (whole.stop_reason === "max_tokens") cutOff++;
  }
  t.ok(toolUses > 0, "the raw streams rebuilt some tool_use inputs (else those checks test nothing)", { toolUses });
}

async function errors(client, base) {
  const post = (body, headers = { "x-api-key": KEY }) => fetch(`${base}/v1/messages`, {
    method: "POST", headers: { "content-type": "application/json", "anthropic-version": "2023-06-01", ...headers }, body,
  });
  const anthropicShape = (j, type) => j && j.type === "error" && j.error && j.error.type === type &&
    typeof j.error.message === "string" && j.error.message.length > 0 && Object.keys(j).length === 2;
  let r = await post("{\"messages\": [");
  let j = await r.json();
  t.equal(r.status, 400, "malformed JSON is a 400");
  t.ok(anthropicShape(j, "invalid_request_error"), "malformed JSON: Anthropic error shape", j);
  try {
    await client.messages.create({
      ...NT, model: MODEL, messages: user("x"), max_tokens: 8,
      output_config: { format: { type: "json_schema", schema: { type: "object", properties: { age: { type: "integer", minimum: 5, maximum: 1 } }, required: ["age"] } } },
    });
    t.ok(false, "an unsatisfiable schema is rejected");
  } catch (e) {
    t.equal(e.status, 400, "invalid schema: 400");
    t.ok(e instanceof Anthropic.BadRequestError, "invalid schema: the SDK's BadRequestError", e.constructor.name);
    t.ok(anthropicShape(e.error, "invalid_request_error"), "invalid schema: Anthropic error shape", e.error);
    t.ok((e.error?.error?.message ?? "").includes("output_config.format.schema"), "invalid schema: the message names the schema field", e.error);
  }
  try {
    await client.messages.create({ model: "claude-sonnet-4-5", messages: user("x"), max_tokens: 1 });
    t.ok(false, "an unknown model is rejected");
  } catch (e) {
    t.equal(e.status, 404, "unknown model: 404");
    t.ok(e instanceof Anthropic.NotFoundError, "unknown model: the SDK's NotFoundError", e.constructor.name);
    t.ok(anthropicShape(e.error, "not_found_error"), "unknown model: not_found_error", e.error);
  }
  for (const [body, field] of [
    [{ model: MODEL, messages: user("x") }, "max_tokens"],
    [{ model: MODEL, max_tokens: 5, messages: user("x"), top_k: -1 }, "top_k"],
    [{ model: MODEL, max_tokens: 5, messages: user("x"), tools: [{ type: "web_search_20250305", name: "web_search" }] }, "tools[0].type"],
    [{ model: MODEL, max_tokens: 5, messages: user("x"), output_config: PROFILE_FORMAT, structured_outputs: { regex: "a" } }, "structured_outputs"],
  ]) {
    r = await post(JSON.stringify(body));
    j = await r.json();
    t.equal(r.status, 400, `${field}: 400`);
    t.ok(anthropicShape(j, "invalid_request_error") && j.error.message.includes(field), `${field}: the message names it`, j);
  }
  const wrongKey = new Anthropic({ baseURL: base, apiKey: "wrong", maxRetries: 0 });
  try {
    await wrongKey.messages.create({ ...NT, model: MODEL, messages: user("x"), max_tokens: 1 });
    t.ok(false, "a wrong key is rejected");
  } catch (e) {
    t.equal(e.status, 401, "wrong key: 401");
    t.ok(e instanceof Anthropic.AuthenticationError, "wrong key: the SDK's AuthenticationError", e.constructor.name);
    t.ok(anthropicShape(e.error, "authentication_error"), "wrong key: authentication_error", e.error);
  }
  r = await post(JSON.stringify({ model: MODEL, max_tokens: 1, messages: user("x") }), {});
  j = await r.json();
  t.equal(r.status, 401, "missing key: 401");
  t.ok(anthropicShape(j, "authentication_error"), "missing key: authentication_error", j);
  // A bearer token (the SDK's authToken) is accepted too.
  const bearer = new Anthropic({ baseURL: base, apiKey: null, authToken: KEY, maxRetries: 0 });
  const m = await bearer.messages.create({ ...NT, model: MODEL, messages: user("x"), max_tokens: 2, seed: 1 });
  t.equal(m.type, "message", "a bearer token is accepted");
  // A stream request rejected before it opens is a plain JSON error, not an event stream.
  r = await post(JSON.stringify({ model: MODEL, max_tokens: 5, messages: user("x"), stream: true, temperature: 2 }));
  j = await r.json();
  t.equal(r.status, 400, "a rejected stream request: 400");
  t.ok(anthropicShape(j, "invalid_request_error") && j.error.message.includes("temperature"), "a rejected stream request: Anthropic error shape", j);
}

const server = await startServer(ninfer, ["--api-key", KEY, "--max-batch", "8", "--threads", "1"]);
try {
  const client = new Anthropic({ baseURL: server.base, apiKey: KEY, maxRetries: 0 });
  await outputFormat(client);
  await toolChoices(client);
  await thinking(client);
  await extension(client);
  await stopSequences(client);
  await toolLoop(client, server.base);
  await streamsMatchNonStreamed(client);
  await rawFraming(server.base, client);
  await errors(client, server.base);
  const logs = server.logs.filter((l) => l.event === "request" && l.endpoint === "/v1/messages");
  t.ok(logs.length > 0 && logs.every((l) => "status" in l), "one JSON log line per Messages request", logs.slice(0, 2));
} finally {
  await server.stop("SIGKILL");
}
t.note("cut_off", cutOff);
process.exit(t.report() ? 0 : 1);
