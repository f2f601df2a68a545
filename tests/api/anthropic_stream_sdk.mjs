// Oracle for the Anthropic Messages stream: the official @anthropic-ai/sdk reads our SSE
// transcripts through a fake fetch, and its MessageStream.finalMessage() must equal our
// non-streamed message object (its `constraint` travels on message_stop, which the SDK passes
// through as a stream event). A transcript whose message is null is a failed stream: the SDK must
// raise an APIError carrying our error type.
//
// Usage: node tests/api/anthropic_stream_sdk.mjs BUILD/ninfer_api_tests
// (runs the gtest case that writes the transcripts into a temporary folder, then checks each).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import Anthropic from '@anthropic-ai/sdk';

const testBinary = process.argv[2];
if (!testBinary) {
  console.error('usage: node anthropic_stream_sdk.mjs PATH/TO/ninfer_api_tests');
  process.exit(2);
}

let failures = 0;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ninfer-anthropic-sse-'));
try {
  execFileSync(testBinary, ['--gtest_filter=AnthropicMessagesStream.*'], {
    env: { ...process.env, NINFER_ANTHROPIC_SSE_DIR: dir },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
} catch (e) {
  // The transcripts are still checked: the SDK is the second, independent reader.
  console.error(`FAIL the C++ stream tests failed (${e.message.split('\n')[0]})`);
  failures++;
}

function fakeFetch(sse) {
  return async () =>
    new Response(sse, { status: 200, headers: { 'content-type': 'text/event-stream', 'request-id': 'req_test' } });
}

// The SDK adds parsed_output (structured-output parsing) to the final message; JSON drops undefined fields.
function plain(message) {
  const { parsed_output, ...rest } = JSON.parse(JSON.stringify(message));
  return rest;
}

const files = fs.readdirSync(dir).filter((f) => f.endsWith('.json')).sort();
if (files.length === 0) {
  console.error('no transcripts were written');
  process.exit(1);
}
for (const file of files) {
  const { name, sse, message } = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
  const client = new Anthropic({ apiKey: 'test', baseURL: 'http://ninfer.test', fetch: fakeFetch(sse), maxRetries: 0 });
  const stream = client.messages.stream({ model: 'm', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] });
  let constraint;
  stream.on('streamEvent', (event) => {
    if (event.type === 'message_stop') constraint = event.constraint;
  });
  try {
    const final = plain(await stream.finalMessage());
    if (message === null) {
      console.error(`FAIL ${name}: the stream ended in an error event, but the SDK returned a message`);
      failures++;
      continue;
    }
    const { constraint: expectedConstraint, ...expected } = message;
    if (!isDeepStrictEqual(final, expected)) {
      console.error(`FAIL ${name}: finalMessage()\n  ${JSON.stringify(final)}\n!= non-streamed\n  ${JSON.stringify(expected)}`);
      failures++;
    } else if (!isDeepStrictEqual(constraint, expectedConstraint)) {
      console.error(`FAIL ${name}: message_stop constraint ${JSON.stringify(constraint)} != ${JSON.stringify(expectedConstraint)}`);
      failures++;
    } else {
      console.log(`ok ${name}`);
    }
  } catch (e) {
    if (message === null && e instanceof Anthropic.APIError && e.error?.error?.type === 'overloaded_error') {
      console.log(`ok ${name} (APIError ${e.error.error.type}: ${e.error.error.message})`);
    } else {
      console.error(`FAIL ${name}: ${e?.stack ?? e}`);
      failures++;
    }
  }
}
fs.rmSync(dir, { recursive: true, force: true });
if (failures > 0) process.exit(1);
console.log(`${files.length} transcripts: the SDK's final message equals the non-streamed object`);
