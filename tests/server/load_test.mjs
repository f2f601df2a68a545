// Load on a real `ninfer serve` over loopback (issue: 64 concurrent streaming constrained requests
// for 60 s; 1,000 idle keep-alive connections; RSS flat). Prints one JSON summary; exits 1 when a
// request fails, a finished output is invalid, RSS grows more than 10% between the 10th second and
// the end, or the idle connections slow a stream by more than 25%.
// Usage: node load_test.mjs NINFER_BINARY [--seconds 60] [--streams 64] [--idle 1000]
import net from "node:net";
import { readFileSync } from "node:fs";
import Ajv2020 from "ajv/dist/2020.js";
import { startServer, rawSse } from "./harness.mjs";

const args = process.argv.slice(2);
const ninfer = args[0];
const opt = (name, def) => { const i = args.indexOf(`--${name}`); return i >= 0 ? Number(args[i + 1]) : def; };
const SECONDS = opt("seconds", 60), STREAMS = opt("streams", 64), IDLE = opt("idle", 1000);

const SCHEMA = {
  type: "object",
  properties: {
    id: { type: "integer", minimum: 0, maximum: 9999 },
    tier: { enum: ["free", "pro", "team"] },
    flags: { type: "array", items: { type: "boolean" }, maxItems: 4 },
  },
  required: ["id", "tier", "flags"],
  additionalProperties: false,
};
const valid = new Ajv2020({ strict: false }).compile(SCHEMA);
const body = (seed, extra = {}) => JSON.stringify({
  messages: [{ role: "user", content: "Account?" }], max_tokens: 64, seed, stream: true, stream_options: { include_usage: true },
  chat_template_kwargs: { enable_thinking: false },
  response_format: { type: "json_schema", json_schema: { name: "account", schema: SCHEMA, strict: true } }, ...extra,
});
const rssKiB = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))[1]);

const server = await startServer(ninfer, ["--max-batch", String(Math.min(STREAMS, 64)), "--max-outstanding", "1024"]);
const url = `${server.base}/v1/chat/completions`;
const post = (b) => fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: b });

// One unconstrained 48-token stream's time per token (the same request each time).
async function streamMsPerToken() {
  const t0 = performance.now();
  const res = await post(JSON.stringify({ messages: [{ role: "user", content: "x" }], max_tokens: 48, seed: 1, stream: true, ignore_eos: true, chat_template_kwargs: { enable_thinking: false } }));
  await rawSse(res);
  return (performance.now() - t0) / 48;
}
const median = (v) => { const s = [...v].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
const summary = { seconds: SECONDS, streams: STREAMS, idle_connections: IDLE };
const failures = [];

// 1. Idle keep-alive connections must not slow a stream.
const base = [];
for (let i = 0; i < 5; i++) base.push(await streamMsPerToken());
const idle = [];
await Promise.all(Array.from({ length: IDLE }, () => new Promise((resolve, reject) => {
  const s = net.connect(server.port, "127.0.0.1", () => {
    s.write("GET /health HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n");
  });
  s.once("data", () => resolve());
  s.on("error", reject);
  idle.push(s);
})));
const withIdle = [];
for (let i = 0; i < 5; i++) withIdle.push(await streamMsPerToken());
// And without them again after the load below: the baseline is measured on both sides of it.
summary.stream_ms_per_token = { without_idle_before: median(base), with_idle: median(withIdle) };

// 2. STREAMS clients, each with one streaming constrained request in flight, for SECONDS.
let finished = 0, cutOff = 0, validated = 0, failed = 0, seed = 1000, tokens = 0;
const rss = [];
const t0 = performance.now();
const deadline = t0 + SECONDS * 1000;
const sampler = setInterval(() => rss.push({ t: (performance.now() - t0) / 1000, kib: rssKiB(server.child.pid) }), 1000);
async function client() {
  while (performance.now() < deadline) {
    let res;
    try { res = await post(body(seed++)); } catch (e) { failed++; failures.push(`fetch: ${e}`); continue; }
    if (res.status !== 200) { failed++; failures.push(`status ${res.status}: ${await res.text()}`); continue; }
    const { events } = await rawSse(res);
    const json = events.filter((e) => e.data !== "[DONE]").map((e) => JSON.parse(e.data));
    if (json.some((j) => j.error)) { failed++; failures.push(`error event: ${JSON.stringify(json.find((j) => j.error))}`); continue; }
    const text = json.flatMap((j) => j.choices ?? []).map((c) => c.delta?.content ?? "").join("");
    const finish = json.flatMap((j) => j.choices ?? []).find((c) => c.finish_reason)?.finish_reason;
    tokens += json[json.length - 1].usage?.completion_tokens ?? 0;
    if (finish !== "stop") { cutOff++; continue; }
    finished++;
    let doc;
    try { doc = JSON.parse(text); } catch { failures.push(`not JSON: ${text}`); continue; }
    if (valid(doc)) validated++; else failures.push(`invalid: ${text}`);
  }
}
await Promise.all(Array.from({ length: STREAMS }, client));
clearInterval(sampler);
const at = (s) => rss.reduce((best, r) => (Math.abs(r.t - s) < Math.abs(best.t - s) ? r : best), rss[0]);
const early = at(Math.min(10, SECONDS / 2)), late = rss[rss.length - 1];
Object.assign(summary, {
  requests_finished: finished, validated, cut_off: cutOff, failed, completion_tokens: tokens, tokens_per_s: tokens / SECONDS,
  requests_per_s: (finished + cutOff) / SECONDS,
  rss_mib: { at_s: early.t, early: early.kib / 1024, end_s: late.t, end: late.kib / 1024, growth: late.kib / early.kib - 1 },
});
if (late.kib > 1.10 * early.kib) failures.push(`RSS grew ${(100 * (late.kib / early.kib - 1)).toFixed(1)}%`);
if (failed > 0 || validated !== finished) failures.push(`${failed} failed, ${finished - validated} invalid`);
for (const s of idle) s.destroy();
await new Promise((r) => setTimeout(r, 200));
const after = [];
for (let i = 0; i < 5; i++) after.push(await streamMsPerToken());
summary.stream_ms_per_token.without_idle_after = median(after);
const baseline = (median(base) + median(after)) / 2;
if (median(withIdle) > 1.25 * baseline) failures.push(`idle connections slow a stream: ${JSON.stringify(summary.stream_ms_per_token)}`);
const code = await server.stop("SIGTERM");
summary.exit_status = code;
if (code !== 0) failures.push(`exit status ${code}`);
console.log(JSON.stringify(summary));
for (const f of failures.slice(0, 20)) console.error(`FAIL load: ${f}`);
process.exit(failures.length ? 1 : 0);
