// Drives a real `ninfer serve` with the official `openai` SDK (pinned in package.json), streaming and
// not, and checks what comes back with independent oracles: Ajv for JSON Schema outputs and tool
// arguments, the raw SSE framing for what the SDK's lenient parser would let through, and
// parse-prometheus-text-format for /metrics. Outputs cut off by max_tokens are counted apart, never as
// a pass or as a failure of the constraint.
// Usage: node openai_sdk_test.mjs NINFER_BINARY
import OpenAI from "openai";
import Ajv2020 from "ajv/dist/2020.js";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { startServer, Checks, rawSse } from "./harness.mjs";
import { PROFILE, WEATHER, TIME } from "./schemas.mjs";

const ninfer = process.argv[2];
const KEY = "sk-ninfer-test";
const ajv = new Ajv2020({ strict: false });
const t = new Checks("openai_sdk");

const TOOLS = [
  { type: "function", function: { name: "get_weather", description: "Weather in a city", parameters: WEATHER, strict: true } },
  { type: "function", function: { name: "get_time", description: "Time in a zone", parameters: TIME, strict: true } },
];
const validators = { get_weather: ajv.compile(WEATHER), get_time: ajv.compile(TIME) };
const profileValid = ajv.compile(PROFILE);
const user = (text) => [{ role: "user", content: text }];
// The default model's template starts the turn in thinking; a random model never closes it by itself.
const NT = { chat_template_kwargs: { enable_thinking: false } };
let cutOff = 0;

function checkToolCalls(calls, allowed, what) {
  for (const c of calls ?? []) {
    t.ok(allowed.includes(c.function.name), `${what}: call names an allowed tool`, c.function.name);
    let args;
    try { args = JSON.parse(c.function.arguments); } catch { t.ok(false, `${what}: arguments are JSON`, c.function.arguments); continue; }
    const v = validators[c.function.name];
    if (v) t.ok(v(args), `${what}: arguments valid (Ajv)`, { args, errors: v.errors });
    t.ok(/^call_[0-9a-f]{24}$/.test(c.id), `${what}: call id`, c.id);
  }
}

async function jsonSchemaFormats(client) {
  for (let seed = 1; seed <= 4; seed++) {
    const r = await client.chat.completions.create({
      ...NT, model: "ninfer-default", messages: user("Profile?"), max_tokens: 120, seed,
      response_format: { type: "json_schema", json_schema: { name: "profile", schema: PROFILE, strict: true } },
    });
    const choice = r.choices[0];
    t.equal(r.object, "chat.completion", "object");
    t.ok(r.constraint && r.constraint.cache, "the final object carries the constraint report", r.constraint);
    if (choice.finish_reason !== "stop") { cutOff++; continue; }
    let doc;
    try { doc = JSON.parse(choice.message.content); } catch { t.ok(false, "json_schema content parses", choice.message.content); continue; }
    t.ok(profileValid(doc), "json_schema content is valid (Ajv)", { doc, errors: profileValid.errors });
    t.ok(r.constraint.complete && r.constraint.terminated, "a finished output is complete and terminated", r.constraint);
  }
  for (let seed = 1; seed <= 3; seed++) {
    const r = await client.chat.completions.create({
      ...NT, model: "ninfer-default", messages: user("Any JSON object"), max_tokens: 60, seed,
      response_format: { type: "json_object" },
    });
    if (r.choices[0].finish_reason !== "stop") { cutOff++; continue; }
    let doc;
    try { doc = JSON.parse(r.choices[0].message.content); } catch { doc = undefined; }
    t.ok(doc !== null && typeof doc === "object" && !Array.isArray(doc), "json_object content is an object", r.choices[0].message.content);
  }
}

async function streamsMatchNonStreamed(client) {
  for (const seed of [11, 12, 13]) {
    const body = {
      ...NT, model: "ninfer-default", messages: user("Profile?"), max_tokens: 80, seed,
      response_format: { type: "json_schema", json_schema: { name: "profile", schema: PROFILE, strict: true } },
    };
    const whole = await client.chat.completions.create(body);
    const stream = client.chat.completions.stream({ ...body, stream_options: { include_usage: true } });
    let deltas = "";
    stream.on("content", (delta) => { deltas += delta; });
    const final = await stream.finalChatCompletion();
    t.equal(final.choices[0].message.content, whole.choices[0].message.content, "the SDK's stream helper rebuilds the non-streamed content");
    t.equal(deltas, whole.choices[0].message.content ?? "", "streamed content deltas concatenate to the final content");
    t.equal(final.choices[0].finish_reason, whole.choices[0].finish_reason, "same finish reason streamed");
    // The second request may find the prompt in the prefix cache: only the cached count differs.
    const { prompt_tokens_details: cached, ...finalUsage } = final.usage ?? {};
    const { prompt_tokens_details: _, ...wholeUsage } = whole.usage ?? {};
    t.equal(finalUsage, wholeUsage, "the usage chunk equals the non-streamed usage");
    t.ok(!cached || (cached.cached_tokens > 0 && cached.cached_tokens < final.usage.prompt_tokens), "cached tokens are part of the prompt", cached);
  }
  // Tool calls streamed: ids, names and argument fragments rebuild the non-streamed calls.
  for (const seed of [21, 22]) {
    const body = { ...NT, model: "ninfer-default", messages: user("Weather?"), max_tokens: 120, seed, tools: TOOLS, tool_choice: "required" };
    const whole = await client.chat.completions.create(body);
    const final = await client.chat.completions.stream(body).finalChatCompletion();
    // (The SDK adds parsed_arguments for strict tools; the wire fields are compared.)
    // Call ids are drawn per request (a fixed seed must not repeat them across an agent's turns).
    const wire = (calls) => (calls ?? []).map((c) => ({ type: c.type, name: c.function.name, arguments: c.function.arguments }));
    t.equal(wire(final.choices[0].message.tool_calls), wire(whole.choices[0].message.tool_calls), "streamed tool calls rebuild the non-streamed ones");
    const ids = [...(final.choices[0].message.tool_calls ?? []), ...(whole.choices[0].message.tool_calls ?? [])].map((c) => c.id);
    t.equal(new Set(ids).size, ids.length, "two requests with the same seed get call ids of their own");
    t.equal(final.choices[0].finish_reason, whole.choices[0].finish_reason, "same finish reason for tool calls");
  }
}

async function rawFraming(base) {
  const res = await fetch(`${base}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${KEY}` },
    body: JSON.stringify({
      ...NT, messages: user("hi"), max_tokens: 12, seed: 5, stream: true, stream_options: { include_usage: true },
      structured_outputs: { regex: "[a-c]{1,40}" },
    }),
  });
  t.equal(res.status, 200, "stream status");
  t.ok((res.headers.get("content-type") ?? "").startsWith("text/event-stream"), "stream content type", res.headers.get("content-type"));
  const { text, events } = await rawSse(res);
  t.ok(text.endsWith("data: [DONE]\n\n"), "the stream ends with data: [DONE]", text.slice(-40));
  const json = events.filter((e) => e.data !== "[DONE]").map((e) => JSON.parse(e.data));
  t.ok(events.every((e) => e.lines.every((l) => l.startsWith("data: "))), "OpenAI chat frames carry only data lines");
  t.ok(new Set(json.map((j) => j.id)).size === 1, "one id across all chunks");
  t.equal(json[0].choices[0].delta.role, "assistant", "the first chunk names the role");
  const last = json[json.length - 1];
  t.ok(Array.isArray(last.choices) && last.choices.length === 0 && last.usage, "include_usage: the last chunk has usage and no choices", last);
  t.ok("constraint" in last && last.constraint !== null, "the last SSE event carries the constraint report", last);
  t.ok(json.slice(0, -1).every((j) => j.usage === null), "earlier chunks carry usage: null");
  const content = json.flatMap((j) => j.choices).map((c) => c.delta.content ?? "").join("");
  const finish = json.flatMap((j) => j.choices).find((c) => c.finish_reason)?.finish_reason;
  if (finish === "stop") t.ok(/^[a-c]{1,40}$/.test(content), "regex output matches", content);
  else cutOff++;
}

async function toolChoices(client) {
  for (let seed = 1; seed <= 3; seed++) {
    const r = await client.chat.completions.create({ ...NT, model: "ninfer-default", messages: user("Weather?"), max_tokens: 120, seed, tools: TOOLS, tool_choice: "required" });
    const c = r.choices[0];
    if (c.finish_reason === "length") { cutOff++; continue; }
    t.equal(c.finish_reason, "tool_calls", "required: finishes with tool_calls");
    t.ok((c.message.tool_calls ?? []).length >= 1, "required: at least one call");
    checkToolCalls(c.message.tool_calls, ["get_weather", "get_time"], "required");
  }
  for (let seed = 1; seed <= 3; seed++) {
    const r = await client.chat.completions.create({
      ...NT, model: "ninfer-default", messages: user("Time?"), max_tokens: 120, seed, tools: TOOLS,
      tool_choice: { type: "function", function: { name: "get_time" } },
    });
    const c = r.choices[0];
    if (c.finish_reason === "length") { cutOff++; continue; }
    t.equal((c.message.tool_calls ?? []).length, 1, "named: exactly one call");
    checkToolCalls(c.message.tool_calls, ["get_time"], "named");
  }
  for (let seed = 1; seed <= 3; seed++) {
    const r = await client.chat.completions.create({ ...NT, model: "ninfer-default", messages: user("Hi"), max_tokens: 40, seed, tools: TOOLS, tool_choice: "none" });
    t.ok(!r.choices[0].message.tool_calls, "none: no tool calls", r.choices[0].message);
    t.ok(!(r.choices[0].message.content ?? "").includes("<tool_call>"), "none: no call syntax in content");
  }
}

// Thinking, closed by the budget, never leaks into content; the body after it keeps its constraint.
async function thinking(client) {
  let opened = 0;
  for (const stream of [false, true]) {
    for (let seed = 1; seed <= 3; seed++) {
      const body = {
        model: "ninfer-default", messages: user("Profile?"), max_tokens: 120, seed, thinking_token_budget: 8,
        response_format: { type: "json_schema", json_schema: { name: "profile", schema: PROFILE, strict: true } },
      };
      const r = stream ? await client.chat.completions.stream(body).finalChatCompletion() : await client.chat.completions.create(body);
      const m = r.choices[0].message;
      // The qwen3 template lets the model open <think> itself; the turns that did are checked.
      const reasoning = m.reasoning_content ?? "";
      if (reasoning.length > 0) opened++;
      t.ok(!(m.content ?? "").includes("think>") && !reasoning.includes("think>"), "thinking never leaks into content", m);
      if (r.choices[0].finish_reason !== "stop") { cutOff++; continue; }
      let doc;
      try { doc = JSON.parse(m.content); } catch { t.ok(false, "content after thinking parses", m.content); continue; }
      t.ok(profileValid(doc), "content after thinking is valid (Ajv)", { doc, errors: profileValid.errors });
      if (!stream && reasoning.length > 0) t.ok(r.usage.completion_tokens_details?.reasoning_tokens > 0, "reasoning tokens are reported", r.usage);
    }
  }
  t.ok(opened > 0, "some turns opened thinking (so the checks above saw reasoning)", opened);
  t.note("thinking_opened", opened);
}

async function extension(client) {
  for (let seed = 1; seed <= 3; seed++) {
    const r = await client.chat.completions.create({
      ...NT, model: "ninfer-default", messages: user("Pick"), max_tokens: 20, seed, structured_outputs: { choice: ["yes", "no", "maybe"] },
    });
    if (r.choices[0].finish_reason !== "stop") { cutOff++; continue; }
    t.ok(["yes", "no", "maybe"].includes(r.choices[0].message.content), "choice output is one of the choices", r.choices[0].message.content);
  }
  const c = await client.completions.create({ model: "ninfer-default", prompt: "Code:", max_tokens: 16, seed: 3, structured_outputs: { regex: "[0-9]{4}" } });
  t.equal(c.object, "text_completion", "completions object");
  if (c.choices[0].finish_reason === "stop") t.ok(/^[0-9]{4}$/.test(c.choices[0].text), "completions regex output matches", c.choices[0].text);
  else cutOff++;
  const cs = await client.completions.create({ model: "ninfer-default", prompt: "Code:", max_tokens: 16, seed: 3, structured_outputs: { regex: "[0-9]{4}" }, stream: true });
  let text = "";
  for await (const chunk of cs) text += chunk.choices[0]?.text ?? "";
  t.equal(text, c.choices[0].text, "streamed completion concatenates to the non-streamed text");
}

async function errors(client, base) {
  const post = (path, body, headers = {}) => fetch(`${base}${path}`, {
    method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${KEY}`, ...headers }, body,
  });
  let r = await post("/v1/chat/completions", "{\"messages\": [");
  let j = await r.json();
  t.equal(r.status, 400, "malformed JSON is a 400");
  t.ok(j.error && typeof j.error.message === "string" && "param" in j.error && "code" in j.error && "type" in j.error, "OpenAI error shape", j);
  r = await post("/v1/chat/completions", JSON.stringify({ messages: "hi" }));
  t.equal(r.status, 400, "a wrong field type is a 400");
  t.equal((await r.json()).error.param, "messages", "param names the field");
  try {
    await client.chat.completions.create({
      ...NT, model: "ninfer-default", messages: user("x"),
      response_format: { type: "json_schema", json_schema: { name: "bad", schema: { type: "object", properties: { age: { type: "integer", minimum: 5, maximum: 1 } }, required: ["age"] } } },
    });
    t.ok(false, "an unsatisfiable schema is rejected");
  } catch (e) {
    t.equal(e.status, 400, "invalid schema: 400");
    t.ok(typeof e.param === "string" && e.param.startsWith("response_format.json_schema.schema.properties.age"), "invalid schema: param points into the schema", e.param);
  }
  try {
    await client.chat.completions.create({ model: "gpt-4o", messages: user("x"), max_tokens: 1 });
    t.ok(false, "an unknown model is rejected");
  } catch (e) {
    t.equal(e.status, 404, "unknown model: 404");
    t.equal(e.code, "model_not_found", "unknown model: code");
  }
  const noKey = new OpenAI({ baseURL: `${base}/v1`, apiKey: "wrong", maxRetries: 0 });
  try {
    await noKey.chat.completions.create({ ...NT, model: "ninfer-default", messages: user("x"), max_tokens: 1 });
    t.ok(false, "a wrong key is rejected");
  } catch (e) {
    t.equal(e.status, 401, "wrong key: 401");
    t.ok(e.error && e.error.message, "wrong key: OpenAI error shape", e.error);
  }
  r = await fetch(`${base}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
  t.equal(r.status, 401, "missing key: 401");
  r = await fetch(`${base}/health`);
  t.equal(r.status, 200, "/health needs no key");
  r = await post("/v1/chat/completions", JSON.stringify({ messages: user("x"), response_format: { type: "json_object" }, structured_outputs: { regex: "a" } }));
  t.equal(r.status, 400, "two constraint sources: 400");
  const param = (await r.json()).error.param ?? "";
  t.ok(param.startsWith("structured_outputs"), "two constraint sources: the second is named", param);
  r = await post("/v1/chat/completions", JSON.stringify({ messages: user("x"), response_format: { type: "json_object" }, stop: ["}"] }));
  t.equal(r.status, 400, "a constraint with stop strings: 400");
  r = await post("/v1/nothing", "{}");
  t.equal(r.status, 404, "unknown endpoint: 404");
  const models = await client.models.list();
  t.equal(models.data.map((m) => m.id), ["ninfer-default"], "/v1/models lists the served model");
}

async function scrape(base) {
  const r = await fetch(`${base}/metrics`);
  const text = await r.text();
  t.ok((r.headers.get("content-type") ?? "").startsWith("text/plain"), "metrics content type");
  let families;
  try { families = parsePrometheusTextFormat(text); } catch (e) { t.ok(false, "/metrics parses as Prometheus text", String(e)); return new Map(); }
  return new Map(families.map((f) => [f.name, f]));
}
const counter = (m, name, labels = {}) => {
  const f = m.get(name);
  if (!f) return undefined;
  const s = f.metrics.find((x) => Object.entries(labels).every(([k, v]) => (x.labels ?? {})[k] === v));
  return s ? Number(s.value ?? s.count) : 0;
};

async function disconnect(base, server) {
  const before = await scrape(base);
  const ctl = new AbortController();
  const res = await fetch(`${base}/v1/chat/completions`, {
    method: "POST", signal: ctl.signal,
    headers: { "content-type": "application/json", authorization: `Bearer ${KEY}` },
    body: JSON.stringify({ ...NT, messages: user("talk"), max_tokens: 4000, stream: true, ignore_eos: true }),
  });
  const reader = res.body.getReader();
  const t0 = performance.now();
  let received = 0;
  while (received < 400) received += (await reader.read()).value?.length ?? 0;  // a few tokens in
  const logsBefore = server.logs.length;
  ctl.abort();
  const abortedAfterMs = performance.now() - t0;
  let after;
  for (let i = 0; i < 100; i++) {
    await new Promise((r) => setTimeout(r, 50));
    after = await scrape(base);
    if (counter(after, "ninfer_requests_active") === 0 && counter(after, "ninfer_requests_cancelled_total") > counter(before, "ninfer_requests_cancelled_total")) break;
  }
  t.ok(counter(after, "ninfer_requests_cancelled_total") > counter(before, "ninfer_requests_cancelled_total"), "a client that disconnects mid-stream is cancelled");
  t.equal(counter(after, "ninfer_requests_active"), 0, "its row is freed");
  // How long the request ran on after the disconnect: the engine stops it at its next step.
  const line = server.logs.slice(logsBefore).find((l) => l.event === "request" && l.cancelled_by_client);
  t.ok(line && line.finish_reason === "cancelled", "the request log says the client went away", line);
  if (line) t.note("disconnect", { client_read_ms: abortedAfterMs, server_total_ms: 1000 * line.total_s, completion_tokens: line.completion_tokens });
}

const server = await startServer(ninfer, ["--api-key", KEY, "--max-batch", "8", "--threads", "1"]);
try {
  const client = new OpenAI({ baseURL: `${server.base}/v1`, apiKey: KEY, maxRetries: 0 });
  const m0 = await scrape(server.base);
  await jsonSchemaFormats(client);
  await streamsMatchNonStreamed(client);
  await rawFraming(server.base);
  await toolChoices(client);
  await thinking(client);
  await extension(client);
  await errors(client, server.base);
  const m1 = await scrape(server.base);
  const chat200 = (m) => counter(m, "ninfer_requests_total", { endpoint: "/v1/chat/completions", status: "200" }) ?? 0;
  t.ok(chat200(m1) > chat200(m0), "requests_total moves with the requests", { before: chat200(m0), after: chat200(m1) });
  t.ok(counter(m1, "ninfer_completion_tokens_total") > 0, "completion tokens are counted");
  t.ok(counter(m1, "ninfer_requests_total", { endpoint: "/v1/chat/completions", status: "400" }) > 0, "400s are counted by endpoint");
  t.ok(m1.get("ninfer_time_to_first_token_seconds")?.type === "HISTOGRAM", "TTFT is a histogram");
  await disconnect(server.base, server);
  const logs = server.logs.filter((l) => l.event === "request");
  t.ok(logs.length > 0 && logs.every((l) => "status" in l && "endpoint" in l), "one JSON log line per request");
  t.ok(logs.some((l) => l.constraint && "cache" in l.constraint), "request logs carry the constraint report");
  // SIGTERM drains: a stream in flight finishes, then the server exits 0.
  const inflight = fetch(`${server.base}/v1/chat/completions`, {
    method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${KEY}` },
    body: JSON.stringify({ messages: user("x"), max_tokens: 24, stream: true, ignore_eos: true }),
  }).then(rawSse);
  await new Promise((r) => setTimeout(r, 100));
  const code = await server.stop("SIGTERM");
  const drained = await inflight;
  t.ok(drained.text.endsWith("data: [DONE]\n\n"), "SIGTERM: the stream in flight finishes", drained.text.slice(-80));
  t.equal(code, 0, "SIGTERM: exit status 0 after the drain");
} finally {
  await server.stop("SIGKILL");
}
t.note("cut_off", cutOff);
process.exit(t.report() ? 0 : 1);
