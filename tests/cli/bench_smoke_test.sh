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

# `bench prefill --forward-only` with several lengths measures each in every round, in turn, and gives
# each length's rate against the first's from the medians of those same rounds.
"$NINFER" bench prefill --tokens 24,40 --repeats 3 --threads 1 --forward-only > "$TMP/lengths.json"
python3 - "$TMP/lengths.json" <<'PY'
import json, sys
out = json.load(open(sys.argv[1]))
assert out["tokens"] == [24, 40], out["tokens"]
j = out["forward"]
assert j["alternated"] is True and [l["tokens"] for l in j["lengths"]] == [24, 40], j
for l in j["lengths"]:
    assert len(l["seconds"]) == 3 and l["seconds_p50"] in l["seconds"], l
    assert abs(l["tokens_per_s"] - l["tokens"] / l["seconds_p50"]) < 1e-6 * l["tokens_per_s"], l
first, second = j["lengths"]
assert first["tokens_per_s_vs_first"] == 1.0
assert abs(second["tokens_per_s_vs_first"] - second["tokens_per_s"] / first["tokens_per_s"]) < 1e-9, second
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
# `bench decode` with a model path brackets B=1's rounds with a read of as many bytes as the weights
# (the memory-bandwidth floor it reports B=1 against); the default model has no path and no floor.
"$NINFER" make-model --preset tiny --seed 3 --out "$TMP/tiny" > /dev/null
"$NINFER" bench decode --model "$TMP/tiny" --batch 1,2 --tokens 8 --repeats 2 --threads 1 --unconstrained-only > "$TMP/decode.json"
python3 - "$TMP/decode.json" "$TMP/tiny" <<'PY'
import json, os, sys
j = json.load(open(sys.argv[1]))
b1, b2 = j["runs"]
assert "memory_floor" not in b2, b2
f = b1["memory_floor"]
size = sum(os.path.getsize(os.path.join(sys.argv[2], n)) for n in os.listdir(sys.argv[2]) if n.endswith(".safetensors"))
assert f["weight_bytes"] == size // 64 * 64, (f["weight_bytes"], size)
assert len(f["read_gb_per_s"]) == 4 and min(f["read_gb_per_s"]) > 0, f  # before and after each of 2 repeats
assert abs(f["floor_ms_per_token"] - f["weight_bytes"] / f["read_gb_per_s_p50"] * 1e-6) < 1e-9 * max(1, f["floor_ms_per_token"]), f
assert abs(f["fraction_of_floor"] - f["floor_ms_per_token"] / b1["unconstrained"]["ms_per_token"]) < 1e-9, f
# Each repeat against the two readings around it, and their median.
reps = f["repeats"]
assert len(reps) == 2, reps
for i, r in enumerate(reps):
    read = (f["read_gb_per_s"][2 * i] + f["read_gb_per_s"][2 * i + 1]) / 2
    assert abs(r["read_gb_per_s"] - read) < 1e-9 * read, (r, read)
    assert abs(r["floor_ms_per_token"] - f["weight_bytes"] / read * 1e-6) < 1e-9 * r["floor_ms_per_token"], r
    assert r["ms_per_token"] > 0 and abs(r["fraction_of_floor"] - r["floor_ms_per_token"] / r["ms_per_token"]) < 1e-9, r
assert f["fraction_of_floor_by_repeat_p50"] in [r["fraction_of_floor"] for r in reps], f
PY
echo "bench smoke: ok"
