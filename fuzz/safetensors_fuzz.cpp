// libFuzzer target: bytes -> safetensors::parse (views checked against the input), and the same
// bytes as config.json text -> parse_hf_config. ModelError is the only acceptable failure.
//
// Build and run: see fuzz/README.md (section safetensors_fuzz).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string_view>

#include "models/model_error.h"
#include "models/qwen3/qwen3_loader.h"
#include "models/safetensors.h"
#include "model_fuzz_sources.inc"

namespace {

using namespace ninfer::models;

[[noreturn]] void die(const char* what) {
  std::fprintf(stderr, "invariant failed: %s\n", what);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> in(data, size);
  try {
    const safetensors::File f = safetensors::parse(in, "fuzz.safetensors");
    for (const TensorView& t : f.tensors) {
      const auto* p = static_cast<const uint8_t*>(t.data);
      const bool copied = !f.storage.empty();  // misaligned tensors live in owned copies
      if (!copied && t.bytes > 0 && (p < in.data() || p + t.bytes > in.data() + in.size())) die("tensor view outside the input");
      const int64_t n = t.elements();
      if (t.bytes != static_cast<size_t>(n) * (t.dtype == DType::F32 ? 4 : 2)) die("tensor byte count");
      if (n > 0) {
        volatile float sink = tensor_element(t, 0) + tensor_element(t, n - 1);
        (void)sink;
      }
    }
  } catch (const ModelError& e) {
    if (e.location().rfind("fuzz.safetensors", 0) != 0) die("error location does not name the file");
  }
  try {
    const qwen3::Qwen3Config c = qwen3::parse_hf_config(std::string_view(reinterpret_cast<const char*>(data), size), "config.json");
    if (c.num_heads % c.num_kv_heads != 0 || c.head_dim % 2 != 0 || c.vocab_size <= 0) die("accepted an impossible config");
  } catch (const ModelError& e) {
    if (e.location().rfind("config.json:", 0) != 0) die("config error location");
  }
  return 0;
}
