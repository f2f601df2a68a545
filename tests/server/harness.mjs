// Starts a real `ninfer serve` for the server tests and stops it: the port comes from the server's
// "listening" log line (--port 0), readiness from GET /health. Request-log lines are kept so that
// tests can check them. Also small assertion helpers shared by the SDK tests.
import { spawn } from "node:child_process";
import { once } from "node:events";

export async function startServer(ninfer, extraArgs = [], { readyTimeoutMs = 300_000 } = {}) {
  const args = ["serve", "--port", "0", ...extraArgs];
  const child = spawn(ninfer, args, { stdio: ["ignore", "ignore", "pipe"] });
  const logs = [];
  let stopping = false;
  let port = null;
  let buffered = "";
  let listening;
  const listeningPromise = new Promise((resolve) => (listening = resolve));
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (text) => {
    buffered += text;
    let nl;
    while ((nl = buffered.indexOf("\n")) >= 0) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      let record = null;
      try { record = JSON.parse(line); } catch { if (process.env.NINFER_TEST_VERBOSE) console.error(line); }
      if (!record) continue;
      logs.push(record);
      if (record.event === "listening") { port = record.port; listening(); }
      // A signal that this harness did not send (another process) reads like a server bug otherwise.
      if (record.event === "draining" && !stopping) console.error(`ninfer serve received signal ${record.signal} from outside the test`);
    }
  });
  const exited = once(child, "exit");
  exited.then(([code, signal]) => {
    if (!stopping) console.error(`ninfer serve exited unexpectedly: code ${code}, signal ${signal}`);
  });
  await Promise.race([listeningPromise, exited.then(() => { throw new Error("ninfer serve exited before listening"); })]);
  const base = `http://127.0.0.1:${port}`;
  const seen = new Set();
  const deadline = Date.now() + readyTimeoutMs;
  for (;;) {
    const r = await fetch(`${base}/health`);
    seen.add(r.status);
    if (r.status === 200) break;
    if (r.status !== 503) throw new Error(`/health answered ${r.status} while loading`);
    if (Date.now() > deadline) throw new Error("the model did not load in time");
    await new Promise((res) => setTimeout(res, 100));
  }
  return {
    child, port, base, logs, healthStatusesSeen: seen,
    async stop(signal = "SIGTERM") {
      stopping = true;
      if (child.exitCode !== null) return child.exitCode;
      child.kill(signal);
      const [code] = await exited;
      return code;
    },
    exited,
  };
}

// Collects failures instead of stopping at the first, so that one run shows every broken check.
export class Checks {
  constructor(name) { this.name = name; this.failures = []; this.passed = 0; this.notes = {}; }
  ok(cond, what, detail) {
    if (cond) this.passed++;
    else this.failures.push(detail === undefined ? what : `${what}: ${typeof detail === "string" ? detail : JSON.stringify(detail)}`);
    return cond;
  }
  equal(a, b, what) { return this.ok(JSON.stringify(a) === JSON.stringify(b), what, { got: a, expected: b }); }
  note(key, value) { this.notes[key] = value; }
  report() {
    console.log(JSON.stringify({ suite: this.name, passed: this.passed, failed: this.failures.length, notes: this.notes }));
    for (const f of this.failures) console.error(`FAIL ${this.name}: ${f}`);
    return this.failures.length === 0;
  }
}

// Reads a raw SSE body into [{event, data}] exactly as framed, so that tests check the wire itself.
export async function rawSse(response) {
  const text = await response.text();
  const events = [];
  for (const block of text.split("\n\n")) {
    if (block === "") continue;
    const e = { event: null, data: null, lines: block.split("\n") };
    for (const line of e.lines) {
      if (line.startsWith("event: ")) e.event = line.slice(7);
      else if (line.startsWith("data: ")) e.data = line.slice(6);
    }
    events.push(e);
  }
  return { text, events };
}
