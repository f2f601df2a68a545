#!/usr/bin/env bash
# CTest `responses_stream_sdk`: the Responses stream checked by the official OpenAI SDK. The api test
# binary writes transcripts (ResponsesSdkTranscripts.*), then responses_stream_sdk.mjs feeds them to
# the SDK. Usage: run_responses_sdk.sh NINFER_API_TESTS SOURCE_ROOT
# Skips (exit 0) when node or node_modules/openai is missing.
set -euo pipefail
API_TESTS="$1"
ROOT="$2"
if ! command -v node >/dev/null 2>&1; then
  echo "SKIP responses_stream_sdk: node is not installed"; exit 0
fi
if [ ! -d "$ROOT/node_modules/openai" ]; then
  echo "SKIP responses_stream_sdk: $ROOT/node_modules/openai missing (run npm ci)"; exit 0
fi
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
NINFER_RESPONSES_SDK_DIR="$TMP" "$API_TESTS" --gtest_filter='ResponsesSdkTranscripts.*' >"$TMP/gtest.log" 2>&1 || {
  cat "$TMP/gtest.log"; exit 1
}
node "$ROOT/tests/api/responses_stream_sdk.mjs" "$TMP"
