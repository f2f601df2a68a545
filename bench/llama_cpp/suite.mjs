#!/usr/bin/env node
// Every figure that issue 13's "must hold" asks for, NInfer against llama.cpp on the same
// random-weight Qwen3-0.6B-shaped GGUFs (f16 and q8_0), in one run, with each bound checked.
//   node suite.mjs [--threads T] [--long-all] [--repeats R]
// - decode: `ninfer bench decode --batch 1,8` (B=1 and B=8 alternated, B=1 bracketed by reads of as
//   many bytes as the weights: the memory-bandwidth floor) and decode.mjs, per type, T threads;
// - prefill: run.sh prefill at 1 and T threads, 512 and 2,048 tokens (alternated with llama.cpp per
//   length, and the lengths alternated in one NInfer process for their ratio); 8,192 tokens for q8_0
//   at T threads, or for every type and thread count with --long-all;
// - interleaving: a 4,096-token q8_0 prompt admitted beside 4 decoding streams;
// - prefix cache: a repeated 2,000-token prompt, q8_0.
// Progress goes to stderr; stdout gets one JSON object: the raw outputs and "must_hold".
// Needs ./build/ninfer; about 18 minutes on 2 cores (--long-all: about 40).
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../..");
const ninfer = path.join(root, "build/ninfer");
const args = { threads: 2, longAll: false, repeats: 2 };
for (let i = 2; i < process.argv.length; ++i) {
  const a = process.argv[i];
  if (a === "--threads") args.threads = Number(process.argv[++i]);
  else if (a === "--repeats") args.repeats = Number(process.argv[++i]);
  else if (a === "--long-all") args.longAll = true;
  else throw new Error(`unknown argument ${a}`);
}
const types = ["q8_0", "f16"];

function json(cmd, argv, env = {}) {
  process.stderr.write(`[${new Date().toISOString().slice(11, 19)}] ${path.basename(cmd)} ${argv.join(" ")}\n`);
  const out = execFileSync(cmd, argv, { cwd: root, env: { ...process.env, ...env }, maxBuffer: 1 << 28,
                                        stdio: ["ignore", "pipe", "inherit"] });
  return JSON.parse(out.toString());
}
const runSh = path.join(here, "run.sh");
// llama.cpp's prebuilt build, installed from the lock file on first use (as run.sh does): decode.mjs,
// which the suite runs first, imports it.
if (!existsSync(path.join(here, "node_modules/node-llama-cpp"))) {
  execFileSync("npm", ["ci", "--omit=optional", "--ignore-scripts", "--no-audit", "--no-fund"],
               { cwd: here, stdio: ["ignore", 2, 2] });
}
// The GGUFs that run.sh measures (it writes them on first use).
const model = Object.fromEntries(types.map((type) => [type, execFileSync(runSh, ["gguf", type], { stdio: ["ignore", "pipe", 2] })
                                                               .toString().trim()]));
const prefill = (threads, lengths, type, repeats) =>
  json(runSh, ["prefill", String(threads), lengths.join(" "), type], { REPEATS: String(repeats) });

const started = new Date().toISOString();
const raw = { decode: {}, llama_decode: {}, prefill: [], interleaving: null, prefix_cache: null };
for (const type of types) {
  raw.decode[type] = json(ninfer, ["bench", "decode", "--model", model[type], "--batch", "1,8", "--tokens", "128",
                                   "--threads", String(args.threads), "--repeats", "3", "--unconstrained-only"]);
  raw.llama_decode[type] = json("node", [path.join(here, "decode.mjs"), "--model", model[type], "--tokens", "128",
                                         "--threads", String(args.threads), "--repeats", "3"]);
}
raw.interleaving = json(ninfer, ["bench", "prefill", "--model", model["q8_0"], "--tokens", "4096", "--streams", "4",
                                 "--threads", String(args.threads)]).interleaving;
for (const threads of [args.threads, 1]) {
  for (const type of types) {
    raw.prefill.push(prefill(threads, args.longAll ? [512, 2048, 8192] : [512, 2048], type, args.repeats));
    if (!args.longAll && type === "q8_0" && threads === args.threads) raw.prefill.push(prefill(threads, [8192], type, 1));
  }
}
raw.prefix_cache = json(ninfer, ["bench", "prefill", "--model", model["q8_0"], "--tokens", "2000", "--repeats", "4",
                                 "--threads", String(args.threads)]).engine.prefix_cache;

// The bounds, each with the figures it was checked on.
const mustHold = [];
const check = (name, value, bound, holds, detail) => mustHold.push({ name, value, bound, holds, ...detail });
for (const p of raw.prefill) {
  for (const l of p.lengths) {
    check(`prefill ${p.type}, ${p.threads} thread(s), ${l.tokens} tokens, vs llama.cpp`, l.ratio, ">= 1.5",
          l.ratio >= 1.5, { ninfer_tokens_per_s: l.ninfer.forward.tokens_per_s, llama_cpp_tokens_per_s: l.llama_cpp.tokens_per_s });
  }
  const alt = p.alternated?.forward?.lengths?.find((l) => l.tokens === 2048);
  if (alt) {
    const sequential = p.lengths.find((l) => l.tokens === 2048).ninfer.forward.tokens_per_s /
                       p.lengths.find((l) => l.tokens === 512).ninfer.forward.tokens_per_s;
    check(`prefill ${p.type}, ${p.threads} thread(s), 2,048 / 512 tokens/s`, alt.tokens_per_s_vs_first, ">= 0.8",
          alt.tokens_per_s_vs_first >= 0.8, { measured: "one process, lengths alternated", sequential_runs: sequential });
  }
}
for (const type of types) {
  const runs = Object.fromEntries(raw.decode[type].runs.map((r) => [r.batch, r]));
  const b1 = runs[1].unconstrained, b8 = runs[8].unconstrained;
  const wall = b8.tokens_per_s / b1.tokens_per_s;
  check(`decode ${type}, B=8 / B=1 total tokens/s`, wall, ">= 5", wall >= 5,
        { decode_steps_only: b8.decode_tokens_per_s / b1.decode_tokens_per_s, b1_ms_per_token: b1.ms_per_token,
          b8_wall_ms_per_step: b8.wall_ms_per_step });
  const llama = raw.llama_decode[type].unconstrained.ms_per_token;
  check(`decode ${type}, B=1 vs llama.cpp`, llama / b1.ms_per_token, ">= 1.0", llama / b1.ms_per_token >= 1.0,
        { ninfer_ms_per_token: b1.ms_per_token, llama_cpp_ms_per_token: llama });
  const floor = runs[1].memory_floor;
  check(`decode ${type}, B=1 vs the memory-bandwidth floor`, floor.fraction_of_floor, ">= 0.85",
        floor.fraction_of_floor >= 0.85,
        { floor_ms_per_token: floor.floor_ms_per_token, read_gb_per_s: floor.read_gb_per_s,
          weight_bytes: floor.weight_bytes, weights_gb_per_s: floor.weights_gb_per_s,
          by_repeat_p50: floor.fraction_of_floor_by_repeat_p50, repeats: floor.repeats });
}
const il = raw.interleaving;
check("interleaving: p99 gap while a 4,096-token prompt is admitted / median gap without it",
      il.p99_during_over_median_without_same_tokens, "<= 3", il.p99_during_over_median_without_same_tokens <= 3,
      { prompt_ttft_s: il.prompt_ttft_s, p99_during_ms: il.itl_ms_during.p99,
        median_without_same_tokens_ms: il.itl_ms_without_same_tokens.p50 });
const pc = raw.prefix_cache;
check("prefix cache: first / repeated time to first token, 2,000 shared tokens", pc.speedup, ">= 10 and identical",
      pc.speedup >= 10 && pc.identical_output_at_temperature_0,
      { identical_output_at_temperature_0: pc.identical_output_at_temperature_0, first_ttft_s: pc.first_ttft_s,
        repeat_ttft_s_p50: pc.repeat_ttft_s_p50 });

console.log(JSON.stringify({ started, ended: new Date().toISOString(), threads: args.threads,
                             all_hold: mustHold.every((m) => m.holds), must_hold: mustHold, raw }, null, 2));
