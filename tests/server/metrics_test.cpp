// The Prometheus exposition: every line is a comment or a well-formed sample, each family is
// declared once before its samples, histogram buckets are cumulative and end in +Inf = count.
#include <cstring>
#include <map>
#include <regex>
#include <sstream>

#include <gtest/gtest.h>

#include "server/api_key.h"
#include "server/metrics.h"

namespace ninfer::server {
namespace {

TEST(ServerMetrics, RendersWellFormedTextWithCumulativeHistograms) {
  ServerMetrics m;
  m.count_request("/v1/chat/completions", 200);
  m.count_request("/v1/chat/completions", 200);
  m.count_request("/v1/messages", 400);
  for (double v : {0.0004, 0.003, 0.003, 2.0, 100.0}) m.time_to_first_token.observe(v);
  m.mask_per_step.observe(3e-6);
  EngineStats stats;
  stats.cache_hits = 5;
  const std::string text = m.render(&stats);

  const std::regex sample(R"(^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[a-z_]+="[^"\\\n]*"(,[a-z_]+="[^"\\\n]*")*\})? (\S+)$)");
  const std::regex type_line(R"(^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram)$)");
  std::map<std::string, std::string> types;
  std::istringstream in(text);
  std::string line;
  std::vector<std::pair<std::string, double>> ttft_buckets;
  double ttft_count = -1;
  while (std::getline(in, line)) {
    std::smatch m2;
    if (line.rfind("# HELP ", 0) == 0) continue;
    if (std::regex_match(line, m2, type_line)) {
      EXPECT_TRUE(types.emplace(m2[1], m2[2]).second) << "family declared twice: " << line;
      continue;
    }
    ASSERT_TRUE(std::regex_match(line, m2, sample)) << line;
    std::string family = m2[1];
    for (const char* suffix : {"_bucket", "_sum", "_count"})
      if (!types.count(family) && family.size() > strlen(suffix) && family.ends_with(suffix))
        family.resize(family.size() - strlen(suffix));
    EXPECT_TRUE(types.count(family)) << "sample before its # TYPE: " << line;
    const std::string value = m2[4];
    if (value != "+Inf") {
      EXPECT_NO_THROW((void)std::stod(value)) << line;
    }
    if (m2[1] == "ninfer_time_to_first_token_seconds_bucket") ttft_buckets.push_back({m2[2], std::stod(value)});
    if (m2[1] == "ninfer_time_to_first_token_seconds_count") ttft_count = std::stod(value);
  }
  ASSERT_FALSE(ttft_buckets.empty());
  for (size_t i = 1; i < ttft_buckets.size(); ++i) EXPECT_GE(ttft_buckets[i].second, ttft_buckets[i - 1].second);
  EXPECT_EQ(ttft_buckets.back().first, "{le=\"+Inf\"}");
  EXPECT_EQ(ttft_buckets.back().second, 5);
  EXPECT_EQ(ttft_count, 5);
  EXPECT_NE(text.find("ninfer_time_to_first_token_seconds_bucket{le=\"0.0005\"} 1\n"), std::string::npos);
  EXPECT_NE(text.find("ninfer_requests_total{endpoint=\"/v1/chat/completions\",status=\"200\"} 2\n"), std::string::npos);
  EXPECT_NE(text.find("ninfer_compile_cache_total{outcome=\"hit\"} 5\n"), std::string::npos);
}

TEST(ApiKey, ComparesWholeKeysOnly) {
  EXPECT_TRUE(constant_time_equal("secret", "secret"));
  EXPECT_FALSE(constant_time_equal("secret", "secreT"));
  EXPECT_FALSE(constant_time_equal("secret", "secret2"));
  EXPECT_FALSE(constant_time_equal("secret", ""));
  EXPECT_TRUE(constant_time_equal("", ""));
  EXPECT_TRUE(api_key_matches("k1", "Bearer k1", "", false));
  EXPECT_FALSE(api_key_matches("k1", "Bearer k2", "", false));
  EXPECT_FALSE(api_key_matches("k1", "k1", "", false));  // no scheme
  EXPECT_FALSE(api_key_matches("k1", "", "k1", false));  // x-api-key only where the protocol uses it
  EXPECT_TRUE(api_key_matches("k1", "", "k1", true));
  EXPECT_FALSE(api_key_matches("k1", "", "", true));
}

}  // namespace
}  // namespace ninfer::server
