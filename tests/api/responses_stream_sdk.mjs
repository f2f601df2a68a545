// SDK oracle for the Responses stream: feeds each transcript folder that
// responses_sdk_transcript_test.cpp wrote to the official `openai` SDK through a fake fetch, and
// checks what an SDK user sees: the stream's finalResponse() equals the non-streamed response the
// SDK returns for the same result (the SDK's own parse decorations aside), the delta snapshots the
// SDK accumulates end as the final texts, the SDK rebuilds the same output from the item events
// alone (response.completed without `output`), and a failed stream rejects with our error.
// Usage: node responses_stream_sdk.mjs TRANSCRIPT_DIR
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import OpenAI from 'openai';

// The fields the SDK adds when it parses a response (output_parsed, parsed, parsed_arguments) differ
// between its create and stream paths; they are not ours.
function withoutParseFields(response) {
  const copy = structuredClone({ ...response });
  delete copy.output_parsed;
  for (const item of copy.output) {
    delete item.parsed_arguments;
    if (item.type === 'message') for (const part of item.content) delete part.parsed;
  }
  return copy;
}

function client(sse, responseJson) {
  const fetch = async (_url, init) => {
    const body = JSON.parse(init.body);
    if (body.stream) return new Response(sse, { status: 200, headers: { 'content-type': 'text/event-stream' } });
    return new Response(responseJson, { status: 200, headers: { 'content-type': 'application/json' } });
  };
  return new OpenAI({ apiKey: 'test', baseURL: 'http://ninfer.test/v1', fetch, maxRetries: 0 });
}

// The transcript with the final event's response.output removed: the SDK must then build the output
// from the output_item events alone.
function withoutFinalOutput(sse) {
  return sse
    .split('\n\n')
    .map((block) => {
      const data = block.split('\n').find((line) => line.startsWith('data: '));
      if (!data) return block;
      const event = JSON.parse(data.slice(6));
      if (event.type !== 'response.completed' && event.type !== 'response.incomplete') return block;
      delete event.response.output;
      return `event: ${event.type}\ndata: ${JSON.stringify(event)}`;
    })
    .join('\n\n');
}

async function streamed(sdk, request) {
  const stream = sdk.responses.stream(request);
  const snapshots = {};
  const types = [];
  stream.on('event', (e) => types.push(e.type));
  stream.on('response.output_text.delta', (e) => (snapshots[e.item_id] = e.snapshot));
  stream.on('response.function_call_arguments.delta', (e) => (snapshots[e.item_id] = e.snapshot));
  const final = await stream.finalResponse();
  return { final, snapshots, types };
}

async function checkCase(folder) {
  const request = JSON.parse(fs.readFileSync(path.join(folder, 'request.json'), 'utf8'));
  const sse = fs.readFileSync(path.join(folder, 'stream.sse'), 'utf8');
  const responseFile = path.join(folder, 'response.json');

  if (!fs.existsSync(responseFile)) {
    // A failed stream: the SDK sees response.failed, then throws on the error event.
    const sdk = client(sse, '{}');
    const stream = sdk.responses.stream(request);
    const types = [];
    let failed = null;
    stream.on('event', (e) => types.push(e.type));
    stream.on('response.failed', (e) => (failed = e.response));
    stream.on('error', () => {});
    await assert.rejects(stream.finalResponse(), (err) => {
      assert.ok(err instanceof OpenAI.APIError, `expected an APIError, got ${err}`);
      assert.match(err.message, /no legal token/);
      return true;
    });
    assert.equal(types[0], 'response.created');
    assert.ok(failed, 'no response.failed event');
    assert.equal(failed.status, 'failed');
    assert.equal(failed.error.code, 'constraint_dead_end');
    return;
  }

  const responseJson = fs.readFileSync(responseFile, 'utf8');
  const sdk = client(sse, responseJson);
  const nonStreamed = await sdk.responses.create({ ...request, stream: false });
  const { final, snapshots, types } = await streamed(sdk, request);
  assert.equal(types[0], 'response.created');
  assert.deepStrictEqual(withoutParseFields(final), withoutParseFields(nonStreamed));
  assert.equal(final.output_text, nonStreamed.output_text);
  // The raw final object is ours, unchanged apart from the SDK's output_text.
  const ours = JSON.parse(responseJson);
  assert.deepStrictEqual({ ...withoutParseFields(final), output_text: undefined }, { ...ours, output_text: undefined });
  for (const item of final.output) {
    if (item.type === 'message') assert.equal(snapshots[item.id] ?? '', item.content[0].text, item.id);
    if (item.type === 'function_call') assert.equal(snapshots[item.id] ?? '', item.arguments, item.id);
  }

  const rebuilt = await streamed(client(withoutFinalOutput(sse), responseJson), request);
  assert.deepStrictEqual(withoutParseFields(rebuilt.final), withoutParseFields(nonStreamed));
}

const dir = process.argv[2];
const cases = fs.readdirSync(dir).filter((n) => fs.statSync(path.join(dir, n)).isDirectory()).sort();
if (cases.length === 0) {
  console.error(`no transcripts in ${dir}`);
  process.exit(1);
}
let failures = 0;
for (const name of cases) {
  try {
    await checkCase(path.join(dir, name));
    console.log(`ok   ${name}`);
  } catch (err) {
    failures += 1;
    console.log(`FAIL ${name}: ${err.stack ?? err}`);
  }
}
console.log(`${cases.length - failures}/${cases.length} transcripts pass the SDK oracle`);
process.exit(failures ? 1 : 0);
