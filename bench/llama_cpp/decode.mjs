#!/usr/bin/env node
// Baseline for `ninfer bench decode`: llama.cpp (the prebuilt CPU build shipped by npm
// node-llama-cpp@3.21.1) decoding the same GGUF, unconstrained and with its JSON-schema grammar.
// Prints one JSON object with the median inter-token latency (ms/token) of each mode.
// Usage: node decode.mjs --model FILE.gguf [--tokens N] [--threads T] [--schema FILE] [--repeats R]
import fs from "node:fs";
import { getLlama, LlamaGrammarEvaluationState } from "node-llama-cpp";

const args = { model: null, tokens: 64, threads: 1, schema: null, repeats: 3, prompt: "Here is the requested JSON document:\n" };
for (let i = 2; i < process.argv.length; ++i) {
  const a = process.argv[i];
  const v = process.argv[++i];
  if (a === "--model") args.model = v;
  else if (a === "--tokens") args.tokens = Number(v);
  else if (a === "--threads") args.threads = Number(v);
  else if (a === "--schema") args.schema = v;
  else if (a === "--repeats") args.repeats = Number(v);
  else if (a === "--prompt") args.prompt = v;
  else throw new Error(`unknown argument ${a}`);
}
if (!args.model) throw new Error("--model is required");

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor((s.length - 1) / 2)] : 0;
};

const llama = await getLlama({ gpu: false, build: "never", maxThreads: args.threads, logLevel: "error" });
const model = await llama.loadModel({ modelPath: args.model });
const context = await model.createContext({ contextSize: 1024, threads: { ideal: args.threads, min: args.threads }, batchSize: 512 });
const sequence = context.getSequence();
const prompt = model.tokenize(args.prompt);
const schema = args.schema
  ? JSON.parse(fs.readFileSync(args.schema, "utf8"))
  : { type: "object", properties: { name: { type: "string" }, age: { type: "integer" } }, required: ["name", "age"] };
const grammar = await llama.createGrammarForJsonSchema(schema);

// One run: N tokens (a constrained run restarts when the grammar completes), gaps between tokens.
async function run(constrained, seed) {
  const gaps = [];
  let produced = 0;
  while (produced < args.tokens) {
    await sequence.clearHistory();
    const options = { temperature: 1, seed };
    if (constrained) options.grammarEvaluationState = new LlamaGrammarEvaluationState({ model, grammar });
    let last = null;
    for await (const token of sequence.evaluate(prompt, options)) {
      const now = performance.now();
      if (last !== null) gaps.push(now - last);
      last = now;
      ++produced;
      if (produced >= args.tokens || (constrained && model.isSpecialToken(token))) break;
    }
    seed += 1;
  }
  return median(gaps);
}

await run(false, 0);  // warm-up: page the weights in
const free = [], withGrammar = [];
for (let r = 0; r < args.repeats; ++r) {
  free.push(await run(false, 100 + r));
  withGrammar.push(await run(true, 100 + r));
}
const base = median(free), cons = median(withGrammar);
process.stdout.write(JSON.stringify({
  engine: "llama.cpp (node-llama-cpp 3.21.1 prebuilt CPU)",
  model: args.model,
  threads: args.threads,
  tokens_per_run: args.tokens,
  repeats: args.repeats,
  unconstrained: { ms_per_token: base, tokens_per_s: 1000 / base },
  constrained: { ms_per_token: cons, tokens_per_s: 1000 / cons },
  added_ms_per_token_p50: cons - base,
}, null, 2) + "\n");
await context.dispose();
await model.dispose();
