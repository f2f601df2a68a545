#!/usr/bin/env bash
# The benches that the closing notes quote run end to end on the default generated model and print
# the figures they promise: `bench prefill --streams` compares the streams' gaps during a prompt with
# the same streams alone over the same tokens (as many gaps on both sides), and `bench spec` gives
# plain decoding's tokens at temperature 0 and the forward's cost by step shape.
set -euo pipefail
NINFER="$1"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

"$NINFER" bench prefill --tokens 48 --streams 2 --threads 1 --prefill-while-decoding 8 > "$TMP/prefill.json"
python3 - "$TMP/prefill.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))["interleaving"]
during, alone = j["itl_ms_during"], j["itl_ms_without_same_tokens"]
assert during["count"] > 0, j
assert alone["count"] == during["count"], (alone["count"], during["count"])
for k in ("p99_during_over_median_without", "p99_during_over_median_without_same_tokens",
          "p50_during_over_median_without_same_tokens"):
    assert j[k] > 0, (k, j[k])
assert j["prompt_ttft_s"] > 0
PY

"$NINFER" bench spec --proposer grammar --tokens 12 --batch 2 --repeats 1 --threads 1 --constrained-only > "$TMP/spec.json"
python3 - "$TMP/spec.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))["constrained"]
assert j["identical_outputs"] == "2/2", j["identical_outputs"]
assert j["speculative"]["tokens_per_s"] > 0 and j["plain"]["tokens_per_s"] > 0
assert len(j["step_cost_ms_by_positions"]) >= 1, j
assert all(v > 0 for v in j["step_cost_ms_by_positions"].values())
PY
echo "bench smoke: ok"
