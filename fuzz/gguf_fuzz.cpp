// libFuzzer target: GGUF bytes -> gguf::parse -> Qwen3 config and weights -> tokenizer synthesised
// from the metadata -> encode/decode. ModelError is the only acceptable failure; anything else (a
// foreign exception, a sanitizer report, a view outside the input, a failed invariant) crashes.
//
// Build and run: see fuzz/README.md (section gguf_fuzz).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>

#include "models/gguf.h"
#include "models/gguf_tokenizer.h"
#include "models/model_error.h"
#include "models/qwen3/qwen3_loader.h"
#include "model_fuzz_sources.inc"

namespace {

using namespace ninfer::models;

[[noreturn]] void die(const char* what) {
  std::fprintf(stderr, "invariant failed: %s\n", what);
  std::abort();
}

// Every view lies inside the input and holds exactly what its shape needs; reading its first and
// last element stays inside it.
void check_views(const gguf::File& f, std::span<const uint8_t> in) {
  for (const TensorView& t : f.tensors) {
    const auto* p = static_cast<const uint8_t*>(t.data);
    if (t.bytes > 0 && (p < in.data() || p + t.bytes > in.data() + in.size())) die("tensor view outside the input");
    const int64_t n = t.elements();
    if (t.shape.empty() || n == 0) continue;
    if (t.bytes != static_cast<size_t>(n / t.cols()) * row_bytes(t.dtype, t.cols())) die("tensor byte count");
    volatile float sink = tensor_element(t, 0) + tensor_element(t, n - 1);
    (void)sink;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> in(data, size);
  gguf::File f;
  try {
    f = gguf::parse(in, "fuzz.gguf");
  } catch (const ModelError& e) {
    if (e.location().rfind("fuzz.gguf", 0) != 0) die("error location does not name the file");
    return 0;
  }
  check_views(f, in);
  for (const auto& [key, value] : f.metadata) {
    try {
      (void)f.get_int_or(key);
    } catch (const ModelError&) {
    }
    try {
      (void)f.get_number_or(key);
    } catch (const ModelError&) {
    }
    (void)value;
  }
  try {
    const auto w = qwen3::weights_from_gguf(f);
    // validate_qwen3_weights passed: the embedding row of the last token is readable.
    volatile float sink = tensor_element(w->embed, w->embed.elements() - 1) + tensor_element(w->lm_head, 0);
    (void)sink;
  } catch (const ModelError&) {
  }
  try {
    const auto tok = load_gguf_tokenizer(f);
    const std::string text(reinterpret_cast<const char*>(data), std::min<size_t>(size, 64));
    for (const std::string& s : {std::string("Hello, world! 123 <|im_end|>"), text}) {
      const auto ids = tok->encode(s);
      for (int32_t id : ids)
        if (id < 0 || id >= tok->vocab_size()) die("encode produced an id outside the vocabulary");
      (void)tok->decode(ids);
    }
  } catch (const ModelError&) {
  }
  return 0;
}
