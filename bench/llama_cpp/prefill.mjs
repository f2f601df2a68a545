#!/usr/bin/env node
// Baseline for `ninfer bench prefill`: llama.cpp (the prebuilt CPU build shipped by npm
// node-llama-cpp@3.21.1) processing an N-token prompt of the same GGUF, without generating. Prints
// one JSON object with the median seconds and prompt tokens/s over the repeats (a first, untimed run
// pages the weights in). Prompts are pseudo-random token ids, a new one per run.
// Usage: node prefill.mjs --model FILE.gguf [--tokens N] [--threads T] [--repeats R] [--batch-size B] [--flash-attention auto|on|off]
import { getLlama } from "node-llama-cpp";

const args = { model: null, tokens: 512, threads: 1, repeats: 3, batchSize: 512, flash: "auto" };
for (let i = 2; i < process.argv.length; ++i) {
  const a = process.argv[i];
  const v = process.argv[++i];
  if (a === "--model") args.model = v;
  else if (a === "--tokens") args.tokens = Number(v);
  else if (a === "--threads") args.threads = Number(v);
  else if (a === "--repeats") args.repeats = Number(v);
  else if (a === "--batch-size") args.batchSize = Number(v);
  else if (a === "--flash-attention") args.flash = v;
  else throw new Error(`unknown argument ${a}`);
}
if (!args.model) throw new Error("--model is required");

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor((s.length - 1) / 2)] : 0;
};

function promptTokens(n, salt) {
  let s = BigInt(salt) * 0x9e3779b97f4a7c15n + 0x632be59bd9b4e019n;
  const mask = (1n << 64n) - 1n;
  const out = [];
  for (let i = 0; i < n; ++i) {
    s ^= (s << 13n) & mask;
    s ^= s >> 7n;
    s ^= (s << 17n) & mask;
    out.push(Number(s % 150000n));
  }
  return out;
}

const llama = await getLlama({ gpu: false, build: "never", maxThreads: args.threads, logLevel: "error" });
const model = await llama.loadModel({ modelPath: args.model });
const flashAttention = args.flash === "auto" ? "auto" : args.flash === "on";
const context = await model.createContext({
  contextSize: args.tokens + 16, threads: { ideal: args.threads, min: args.threads }, batchSize: args.batchSize, flashAttention,
});
const sequence = context.getSequence();

const seconds = [];
for (let r = 0; r <= args.repeats; ++r) {
  await sequence.clearHistory();
  const tokens = promptTokens(args.tokens, 100 + r);
  const t0 = performance.now();
  await sequence.evaluateWithoutGeneratingNewTokens(tokens);
  const s = (performance.now() - t0) / 1000;
  if (r > 0) seconds.push(s);
}
const s = median(seconds);
process.stdout.write(JSON.stringify({
  engine: "llama.cpp (node-llama-cpp 3.21.1 prebuilt CPU)",
  model: args.model,
  threads: args.threads,
  tokens: args.tokens,
  batch_size: args.batchSize,
  flash_attention: args.flash,
  repeats: args.repeats,
  seconds_p50: s,
  seconds,
  tokens_per_s: args.tokens / s,
}, null, 2) + "\n");
await context.dispose();
await model.dispose();
