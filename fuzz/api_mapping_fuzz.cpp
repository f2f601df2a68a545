// libFuzzer target: request body -> api::map_api_request for one of the four protocols. The first
// input byte picks the protocol (modulo 4: Chat Completions, Completions, Responses, Messages), the
// rest is the body. The body either maps or is rejected with a 4xx api::ApiError whose error body
// has the protocol's shape and dumps as UTF-8 JSON (fuzz/api_fuzz_checks.h); anything else, and
// every sanitizer report, is a bug and crashes the run.
//
// Build: CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DNINFER_FUZZ=ON -DNINFER_BUILD_TESTS=OFF
//        -DNINFER_BUILD_BENCH=OFF && ninja -C build-fuzz api_mapping_fuzz
// Run:   build-fuzz/api_mapping_fuzz WORK_DIR fuzz/corpus/api_mapping -dict=fuzz/api_mapping.dict
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "api_fuzz_checks.h"

namespace {

constexpr ninfer::api::ApiProtocol kProtocols[] = {
    ninfer::api::ApiProtocol::OpenAIChat,
    ninfer::api::ApiProtocol::OpenAICompletions,
    ninfer::api::ApiProtocol::OpenAIResponses,
    ninfer::api::ApiProtocol::AnthropicMessages,
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  ninfer::fuzz::check_mapping(kProtocols[data[0] % 4], input.substr(1), input);
  return 0;
}
