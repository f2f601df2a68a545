// Enum and const numbers accept every spelling of their value (2 = 2.0 = 20e-1 = 0.2E1 ...),
// within the family stated in number_spellings.h, checked against an exact decimal oracle; large
// enums of mixed types compile and accept exactly their members.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "json_schema_test_support.h"
#include "text/number_spellings.h"

namespace ninfer::text {
namespace {

using testing::accepts;
using testing::compile_schema;

// A JSON number's exact value, 0.digits x 10^point (digits without leading or trailing zeros;
// empty for zero), and where its written point sits relative to the first significant digit.
struct Exact {
  bool negative = false;
  std::string digits;
  long point = 0;
  long written_point = 0;  // r: the mantissa's point position after the first significant digit
  bool operator==(const Exact& o) const {
    return digits == o.digits && (digits.empty() || (negative == o.negative && point == o.point));
  }
};

Exact exact(const std::string& t) {
  Exact x;
  size_t i = 0;
  if (t[i] == '-') x.negative = true, ++i;
  std::string all;
  long int_len = 0;
  while (i < t.size() && isdigit(static_cast<unsigned char>(t[i]))) all += t[i++], ++int_len;
  if (i < t.size() && t[i] == '.') {
    ++i;
    while (i < t.size() && isdigit(static_cast<unsigned char>(t[i]))) all += t[i++];
  }
  long exp = 0;
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) exp = std::stol(t.substr(i + 1));
  const size_t first = all.find_first_not_of('0');
  if (first == std::string::npos) return x;
  x.digits = all.substr(first, all.find_last_not_of('0') - first + 1);
  x.written_point = int_len - static_cast<long>(first);
  x.point = x.written_point + exp;
  return x;
}

// The family of spellings number_spellings.h promises to accept for a value.
bool in_family(const Exact& value, const Exact& spelling) {
  if (value.digits.empty()) return true;
  const long n = static_cast<long>(value.digits.size());
  return spelling.written_point >= std::min(1L, value.point) - kSpellingShift &&
         spelling.written_point <= std::max(n, value.point) + kSpellingShift;
}

// Spellings of the value 0.digits x 10^point with the point at `r`, an exponent written in a
// given style and `zeros` trailing fraction zeros.
std::string spell(bool negative, const std::string& digits, long point, long r, int style, int zeros) {
  std::string mantissa;
  const long n = static_cast<long>(digits.size());
  if (r <= 0) {
    mantissa = "0." + std::string(static_cast<size_t>(-r), '0') + digits;
  } else if (r < n) {
    mantissa = digits.substr(0, static_cast<size_t>(r)) + "." + digits.substr(static_cast<size_t>(r));
  } else {
    mantissa = digits + std::string(static_cast<size_t>(r - n), '0');
    if (zeros > 0) mantissa += ".";
  }
  if (mantissa.find('.') != std::string::npos) mantissa += std::string(static_cast<size_t>(zeros), '0');
  const long e = point - r;
  std::string exp;
  switch (style) {
    case 0: if (e != 0) return ""; break;  // no exponent: only when the point needs none
    case 1: exp = "e" + std::to_string(e); break;
    case 2: exp = "E" + std::string(e >= 0 ? "+" : "-") + std::to_string(std::labs(e)); break;
    case 3: exp = "e" + std::string(e >= 0 ? "" : "-") + "00" + std::to_string(std::labs(e)); break;
  }
  return (negative ? "-" : "") + mantissa + exp;
}

TEST(EnumSpellings, EveryInFamilySpellingOfAnEnumNumberIsAcceptedAndNoOtherNumber) {
  const std::vector<std::string> values = {"2.0", "-3.5", "0.001", "12345", "1e20", "1.5e-7", "123.456", "100", "7"};
  std::string schema = R"({"enum":[)";
  for (size_t i = 0; i < values.size(); ++i) schema += (i ? "," : "") + values[i];
  schema += "]}";
  auto g = compile_schema(schema);
  std::vector<Exact> members;
  for (const auto& v : values) members.push_back(exact(v));
  // Candidates: spellings of the members and of their neighbours (other digits, other
  // magnitudes, the other sign), with the point moved across and beyond the family bound.
  std::vector<Exact> targets = members;
  for (const auto& m : members) {
    targets.push_back({m.negative, m.digits, m.point + 1, 0});
    targets.push_back({m.negative, m.digits, m.point - 1, 0});
    targets.push_back({!m.negative, m.digits, m.point, 0});
    targets.push_back({m.negative, m.digits + "1", m.point, 0});
    if (m.digits.size() > 1) targets.push_back({m.negative, m.digits.substr(0, m.digits.size() - 1), m.point, 0});
  }
  size_t checked = 0, accepted = 0;
  for (const auto& t : targets)
    for (long r = std::min(1L, t.point) - kSpellingShift - 3; r <= std::max<long>(static_cast<long>(t.digits.size()), t.point) + kSpellingShift + 3; ++r)
      for (int style = 0; style < 4; ++style)
        for (int zeros : {0, 1, 3}) {
          const std::string text = spell(t.negative, t.digits, t.point, r, style, zeros);
          if (text.empty()) continue;
          const Exact x = exact(text);
          ASSERT_TRUE(x == t) << text;  // the generator spells the target
          bool expected = false;
          for (const auto& m : members) expected |= m == x && in_family(m, x);
          EXPECT_EQ(accepts(g, text), expected) << text;
          ++checked;
          accepted += expected;
        }
  EXPECT_GT(checked, 2000u);
  EXPECT_GT(accepted, 500u);
}

TEST(EnumSpellings, ZeroIsEverySpellingOfZero) {
  auto g = compile_schema(R"({"enum":[0.0, "x"]})");
  for (const char* t : {"0", "-0", "0.0", "0.000", "-0.0", "0e0", "0E+5", "0e-7", "-0.00e12", "0.0e0"}) EXPECT_TRUE(accepts(g, t)) << t;
  for (const char* t : {"00", "0.", ".0", "1", "0.01", "0e", "-", "1e-400"}) EXPECT_FALSE(accepts(g, t)) << t;
}

TEST(EnumSpellings, ConstAndNestedNumbersAcceptOtherSpellings) {
  // MaskBench Github_medium---o61348: "since": {"enum": [2.0]} with the instance writing 2.
  auto g = compile_schema(R"({"type":"object","properties":{"since":{"enum":[2.0]}},"required":["since"]})");
  EXPECT_TRUE(accepts(g, R"({"since":2})"));
  EXPECT_TRUE(accepts(g, R"({"since":2.0})"));
  EXPECT_TRUE(accepts(g, R"({"since":20e-1})"));
  EXPECT_FALSE(accepts(g, R"({"since":2.01})"));
  auto c = compile_schema(R"({"const":1.50})");
  for (const char* t : {"1.5", "1.50", "15e-1", "0.15E1", "1.5e0"}) EXPECT_TRUE(accepts(c, t)) << t;
  for (const char* t : {"1.05", "15", "1.5e1"}) EXPECT_FALSE(accepts(c, t)) << t;
  auto n = compile_schema(R"({"enum":[[1, {"a": 2.50}], {"b": [-3]}]})");
  EXPECT_TRUE(accepts(n, R"([1.0,{"a":2.5}])"));
  EXPECT_TRUE(accepts(n, R"([10e-1,{"a":25E-1}])"));
  EXPECT_TRUE(accepts(n, R"({"b":[-3.000]})"));
  EXPECT_FALSE(accepts(n, R"([1,{"a":2.4}])"));
  EXPECT_FALSE(accepts(n, R"({"b":[3]})"));
}

TEST(EnumSpellings, ALargeEnumOfMixedTypesAcceptsExactlyItsMembers) {
  std::mt19937 rng(7);
  nlohmann::ordered_json values = nlohmann::ordered_json::array();
  // Numbers cost about 40-70 automaton states each (all their spellings), strings about their bytes.
  for (int i = 0; i < 12000; ++i) {
    switch (i % 10) {
      case 6: values.push_back(static_cast<int64_t>(rng() % 2000000) - 1000000); break;
      case 7: values.push_back(static_cast<double>(rng() % 100000) / 64.0); break;
      case 8: values.push_back(nlohmann::ordered_json::array({i, "a"})); break;
      case 9: values.push_back(i % 20 == 9 ? nlohmann::ordered_json(true) : nlohmann::ordered_json(nullptr)); break;
      default: values.push_back("s" + std::to_string(rng() % 1000000)); break;
    }
  }
  auto g = compile_schema(nlohmann::ordered_json{{"enum", values}}.dump());
  std::set<std::string> members;
  for (const auto& v : values) members.insert(v.dump());
  for (size_t i = 0; i < values.size(); i += 97) EXPECT_TRUE(accepts(g, values[i].dump())) << values[i].dump();
  EXPECT_FALSE(accepts(g, "false"));
  // More than kLargeNumberSet numbers: shift 0, still trailing zeros and exponent spellings.
  for (size_t i = 6; i < values.size(); i += 970) {
    const std::string t = values[i].dump();
    EXPECT_TRUE(accepts(g, t + ".00")) << t;
    EXPECT_TRUE(accepts(g, t + "E+0")) << t;
    EXPECT_FALSE(accepts(g, t + "0e-2")) << t << " moves the point past the plain form";
  }
  for (int k = 0; k < 300; ++k) {
    const std::string s = "\"s" + std::to_string(rng() % 1000000) + "\"";
    EXPECT_EQ(accepts(g, s), members.count(s) > 0) << s;
    const std::string n = std::to_string(static_cast<int64_t>(rng() % 2000000) - 1000000);
    const bool is_int_member = members.count(n) > 0;
    // An integer may also equal one of the fractions (multiples of 1/64 written in plain form).
    bool is_fraction_member = false;
    for (size_t i = 7; i < values.size(); i += 10) is_fraction_member |= values[i].get<double>() == std::stod(n);
    EXPECT_EQ(accepts(g, n), is_int_member || is_fraction_member) << n;
  }
}

}  // namespace
}  // namespace ninfer::text
