#!/usr/bin/env node
// Validates tool-call arguments with Ajv (2020-12, ajv-formats full mode), an independent JSON
// Schema validator. Usage: node tests/frontend/validate_tool_args.mjs < CASES.jsonl
// Each input line: {"label": ..., "schema": {...}, "arguments": "JSON text"}. Prints one JSON
// object: {"passed": N, "failed": M, "failures": [{"label", "arguments", "errors"}, ...]}.
import fs from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const Ajv2020 = require("ajv/dist/2020").default;
const addFormats = require("ajv-formats").default;

const ajv = new Ajv2020({ strict: false, allErrors: true, logger: false });
addFormats(ajv, { mode: "full" });
const compiled = new Map();
let passed = 0;
const failures = [];
for (const line of fs.readFileSync(0, "utf8").split("\n")) {
  if (!line.trim()) continue;
  const c = JSON.parse(line);
  const key = JSON.stringify(c.schema);
  if (!compiled.has(key)) compiled.set(key, ajv.compile(c.schema));
  const validate = compiled.get(key);
  let instance;
  try {
    instance = JSON.parse(c.arguments);
  } catch (e) {
    failures.push({ label: c.label, arguments: c.arguments, errors: "not JSON: " + e.message });
    continue;
  }
  if (validate(instance)) passed++;
  else failures.push({ label: c.label, arguments: c.arguments, errors: validate.errors });
}
process.stdout.write(JSON.stringify({ passed, failed: failures.length, failures: failures.slice(0, 20) }) + "\n");
