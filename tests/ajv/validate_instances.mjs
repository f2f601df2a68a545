#!/usr/bin/env node
// Validates the instances written by `ninfer grammar sample` with Ajv, an independent JSON Schema
// validator. Usage:
//   node tests/ajv/validate_instances.mjs (--maskbench DIR | --schema-file F) [--input FILE.jsonl]
//        [--label TEXT]
// Reads the JSONL (stdin by default), re-reads each schema (MaskBench: the "schema" member of the
// file named on each line, inside DIR), compiles it with the Ajv class of its "$schema"
// (2020-12 when absent; 2019-09; draft-07; draft-06 = the draft-07 class with the draft-06
// meta-schema; draft-04 = ajv-draft-04) with strict: false, allErrors: true and ajv-formats (full
// mode), and validates every instance that ended (see compile() for the recorded fallbacks and
// tests/ajv/README.md). Prints one JSON line per failure and per schema that Ajv cannot compile,
// then a JSON summary, then "LABEL: N passed, M failed".
// Exit status 1 when any ended instance is invalid or the engine misbehaved (crash, mask/accept
// mismatch, invalid UTF-8), else 0. Schemas that Ajv cannot compile are counted and skipped.
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const Ajv07 = require("ajv").default;
const Ajv2019 = require("ajv/dist/2019").default;
const Ajv2020 = require("ajv/dist/2020").default;
const Ajv04 = require("ajv-draft-04").default;
const addFormats = require("ajv-formats").default;
const draft06Meta = require("ajv/dist/refs/json-schema-draft-06.json");

function parseArgs(argv) {
  const args = { maskbench: null, schemaFile: null, input: null, label: "ajv random walk" };
  for (let i = 0; i < argv.length; ++i) {
    const a = argv[i];
    const next = () => {
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
      return argv[++i];
    };
    if (a === "--maskbench") args.maskbench = next();
    else if (a === "--schema-file") args.schemaFile = next();
    else if (a === "--input") args.input = next();
    else if (a === "--label") args.label = next();
    else throw new Error(`unknown argument ${a}`);
  }
  if (!args.maskbench === !args.schemaFile) throw new Error("give exactly one of --maskbench DIR and --schema-file F");
  return args;
}

// Which draft a schema declares; null = not a draft we know (validated as 2020-12, noted).
function draftOf(schema) {
  const uri = schema && typeof schema === "object" && typeof schema.$schema === "string" ? schema.$schema : "";
  if (uri === "") return "2020-12";
  if (uri.includes("draft-04")) return "draft-04";
  if (uri.includes("draft-06")) return "draft-06";
  if (uri.includes("draft-07")) return "draft-07";
  if (uri.includes("2019-09")) return "2019-09";
  if (uri.includes("2020-12")) return "2020-12";
  return null;
}

// `relax`: Ajv options for the fallbacks below (validateSchema, meta, unicodeRegExp).
function makeAjv(draft, relax) {
  const opts = { strict: false, allErrors: true, logger: false, ...relax };
  let ajv;
  if (draft === "draft-04") ajv = new Ajv04(opts);
  else if (draft === "draft-06") {
    ajv = new Ajv07(opts);
    if (opts.meta !== false) ajv.addMetaSchema(draft06Meta);
  } else if (draft === "draft-07") ajv = new Ajv07(opts);
  else if (draft === "2019-09") ajv = new Ajv2019(opts);
  else ajv = new Ajv2020(opts);
  // Since draft-06 "id" is no keyword (it became "$id"), i.e. an annotation, but Ajv's later-draft
  // classes refuse it outright; dropping Ajv's guard keyword lets it be ignored like any unknown one.
  if (draft !== "draft-04") ajv.removeKeyword("id");
  addFormats(ajv, { mode: "full" });
  return ajv;
}

// A fresh Ajv per schema (no $id collisions between schemas). Fallbacks, each recorded on the
// schema (and on its failures) so that a verdict under them can be weighed:
//   meta_invalid:  the schema fails its meta-schema -> compiled without meta-schema validation;
//   meta_id:       the schema's $id is the meta-schema's own URI -> no meta-schema loaded;
//   non_unicode_regex: a pattern is no valid /u regex (e.g. "\-") -> Ajv's unicodeRegExp: false.
function compile(schema) {
  let draft = draftOf(schema);
  const fallbacks = [];
  if (draft === null) {
    fallbacks.push("unknown_draft");
    draft = "2020-12";
    schema = { ...schema };
    delete schema.$schema;
  }
  const relax = {};
  for (;;) {
    try {
      return { validate: makeAjv(draft, relax).compile(schema), draft, fallbacks };
    } catch (e) {
      const msg = String(e.message);
      if (msg.startsWith("schema is invalid") && relax.validateSchema !== false) {
        fallbacks.push(`meta_invalid: ${msg.slice(0, 300)}`);
        relax.validateSchema = false;
      } else if (/schema with key or id .* already exists/.test(msg) && relax.meta !== false) {
        fallbacks.push("meta_id");
        relax.meta = false;
        relax.validateSchema = false;
      } else if (msg.startsWith("Invalid regular expression") && relax.unicodeRegExp !== false) {
        fallbacks.push("non_unicode_regex");
        relax.unicodeRegExp = false;
      } else {
        throw e;
      }
    }
  }
}

// Object member names that occur twice in one object of a (valid) JSON text.
function duplicateKeys(text) {
  const dups = [];
  const stack = [];  // per open container: a Set of names (object) or null (array)
  let expectKey = false;
  for (let i = 0; i < text.length; ++i) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      const top = stack[stack.length - 1];
      if (top && expectKey) {
        const name = JSON.parse(text.slice(i, j + 1));
        if (top.has(name)) dups.push(name);
        top.add(name);
        expectKey = false;
      }
      i = j;
    } else if (c === "{") {
      stack.push(new Set());
      expectKey = true;
    } else if (c === "[") {
      stack.push(null);
    } else if (c === "}" || c === "]") {
      stack.pop();
    } else if (c === ",") {
      expectKey = stack[stack.length - 1] instanceof Set;
    }
  }
  return dups;
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const input = args.input ? fs.createReadStream(args.input) : process.stdin;
  const lines = readline.createInterface({ input, crlfDelay: Infinity });

  const s = {
    schemas: 0, compiled: 0, compile_errors: 0, instances: 0, ended: 0, valid: 0, invalid: 0,
    not_ended: 0, dead_ends: 0, duplicate_key_instances: 0, ajv_compile_errors: 0, ajv_fallbacks: {}, nonfinite_number_instances: 0,
    ajv_skipped_instances: 0, engine_errors: 0, timeouts: 0, drafts: {}, ninfer_compile_error_kinds: {},
  };
  const ajvErrorFiles = [];
  const timeouts = [];
  const seen = new Map();  // file -> {validate, ...} or {error}
  const out = (obj) => process.stdout.write(JSON.stringify(obj) + "\n");

  function schemaFor(file) {
    if (seen.has(file)) return seen.get(file);
    let entry;
    try {
      const source = args.maskbench
        ? JSON.parse(fs.readFileSync(path.join(args.maskbench, file), "utf8")).schema
        : JSON.parse(fs.readFileSync(args.schemaFile, "utf8"));
      entry = compile(source);
      s.drafts[entry.draft] = (s.drafts[entry.draft] || 0) + 1;
      for (const f of entry.fallbacks) {
        const k = f.split(":")[0];
        s.ajv_fallbacks[k] = (s.ajv_fallbacks[k] || 0) + 1;
      }
    } catch (e) {
      entry = { error: String(e.message || e) };
      ++s.ajv_compile_errors;
      ajvErrorFiles.push(file);
      out({ ajv_compile_error: { file, message: entry.error.slice(0, 500) } });
    }
    seen.set(file, entry);
    return entry;
  }

  const files = new Set();
  const failFile = new Set();
  for await (const line of lines) {
    if (!line.trim()) continue;
    const rec = JSON.parse(line);
    if (!files.has(rec.file)) {
      files.add(rec.file);
      ++s.schemas;
    }
    if (rec.compile_error) {
      ++s.compile_errors;
      const k = rec.compile_error.kind + (rec.compile_error.keyword ? `:${rec.compile_error.keyword}` : "");
      s.ninfer_compile_error_kinds[k] = (s.ninfer_compile_error_kinds[k] || 0) + 1;
      continue;
    }
    if (rec.error) {  // the schema's child process timed out, ran out of memory or crashed
      if (rec.error === "timeout") {
        ++s.timeouts;
        timeouts.push(rec.file);
      } else {
        ++s.engine_errors;
        failFile.add(rec.file);
      }
      out({ failure: { file: rec.file, reason: `ninfer ${rec.error}`, signal: rec.signal } });
      continue;
    }
    ++s.instances;
    if (rec.index === 0) ++s.compiled;
    if (rec.mask_mismatch || (rec.ended && rec.invalid_utf8)) {
      ++s.engine_errors;
      failFile.add(rec.file);
      out({ failure: { file: rec.file, index: rec.index, reason: rec.mask_mismatch ? "mask_mismatch" : "invalid_utf8",
                       text: rec.text, text_hex: rec.text_hex } });
      continue;
    }
    if (!rec.ended) {
      ++s.not_ended;
      continue;
    }
    ++s.ended;
    if (rec.dead_end) ++s.dead_ends;
    const entry = schemaFor(rec.file);
    if (entry.error) {
      ++s.ajv_skipped_instances;
      continue;
    }
    let data, parseError = null, nonfinite = false;
    try {
      // Numbers beyond binary64 (about 1.8e308) parse as +-Infinity: noted, not judged here.
      data = JSON.parse(rec.text, (k, v) => {
        if (typeof v === "number" && !Number.isFinite(v)) nonfinite = true;
        return v;
      });
    } catch (e) {
      parseError = String(e.message);
    }
    if (nonfinite) ++s.nonfinite_number_instances;
    const dups = parseError ? [] : duplicateKeys(rec.text);
    if (dups.length) ++s.duplicate_key_instances;
    const ok = parseError === null && entry.validate(data);
    if (ok) {
      ++s.valid;
      continue;
    }
    ++s.invalid;
    failFile.add(rec.file);
    const f = { file: rec.file, index: rec.index, draft: entry.draft, text: rec.text };
    if (rec.dead_end) f.dead_end = true;
    if (entry.fallbacks.length) f.ajv_fallbacks = entry.fallbacks;
    if (nonfinite) f.nonfinite_numbers = true;
    if (dups.length) f.duplicate_keys = dups;
    if (parseError) f.json_parse_error = parseError;
    else f.errors = entry.validate.errors;
    out({ failure: f });
  }
  s.ajv_compile_error_files = ajvErrorFiles;
  s.timeout_files = timeouts;
  s.failing_files = [...failFile].sort();
  process.stdout.write(JSON.stringify(s, null, 2) + "\n");
  const failed = s.invalid + s.engine_errors;
  process.stdout.write(`${args.label}: ${s.valid} passed, ${failed} failed\n`);
  process.exitCode = failed ? 1 : 0;
}

main().catch((e) => {
  process.stderr.write(`validate_instances: ${e.stack || e}\n`);
  process.exitCode = 2;
});
