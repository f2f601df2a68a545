// The loop every protocol's fuzz test runs: mutate a valid body, map it, and require that it either
// maps or is a 400 naming a field whose error object dumps as JSON.
#pragma once

#include <cstdint>
#include <functional>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "json_mutations.h"

namespace ninfer::api::testing {

struct FuzzOutcomes {
  int accepted = 0, rejected = 0;
};

// `iterations` bodies, each `valid` with 1 to 3 mutations drawn from `seed`. `map` maps one and
// checks what it maps to; `render` dumps a rejection as the protocol's error object. Anything but
// an ApiError escaping (a std::exception from the JSON library) fails the test.
inline FuzzOutcomes fuzz_mapping(const Json& valid, uint64_t seed, int iterations,
                                 const std::function<void(const Json& body)>& map,
                                 const std::function<std::string(const ApiError& error)>& render) {
  std::mt19937_64 rng(seed);
  FuzzOutcomes outcomes;
  for (int iteration = 0; iteration < iterations; ++iteration) {
    Json body = valid;
    const int mutations = 1 + static_cast<int>(rng() % 3);
    for (int m = 0; m < mutations; ++m) mutate(body, rng);
    try {
      map(body);
      ++outcomes.accepted;
    } catch (const ApiError& e) {
      EXPECT_EQ(e.status, 400) << body.dump();
      EXPECT_FALSE(e.param.empty()) << e.message << "\n" << body.dump();
      EXPECT_FALSE(e.message.empty());
      EXPECT_NO_THROW(render(e));
      ++outcomes.rejected;
    }
    if (::testing::Test::HasFailure()) break;  // one body's failures, not thousands
  }
  return outcomes;
}

}  // namespace ninfer::api::testing
