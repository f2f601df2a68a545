// Scalar conversions between float and the 16-bit storage formats (IEEE half, bfloat16) and the
// GGML Q8_0 block layout, shared by the format readers/writers, tensor_element and make-model.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace ninfer::models {

inline uint32_t float_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float bits_float(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

inline float bf16_to_f32(uint16_t h) { return bits_float(static_cast<uint32_t>(h) << 16); }

// Round to nearest even; NaN stays a (quiet) NaN.
inline uint16_t f32_to_bf16(float f) {
  const uint32_t u = float_bits(f);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<uint16_t>((u >> 16) | 0x40);
  return static_cast<uint16_t>((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}

inline float f16_to_f32(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1Fu;
  const uint32_t mant = h & 0x3FFu;
  if (exp == 0x1F) return bits_float(sign | 0x7F800000u | (mant << 13));  // inf / NaN
  if (exp == 0) {
    // Zero or subnormal: mant * 2^-24, exact in float.
    const float v = static_cast<float>(mant) * 5.9604644775390625e-08f;
    return sign ? -v : v;
  }
  return bits_float(sign | ((exp + 112u) << 23) | (mant << 13));
}

// Round to nearest even, overflow to infinity, gradual underflow to subnormals.
inline uint16_t f32_to_f16(float f) {
  const uint32_t u = float_bits(f);
  const uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
  const uint32_t abs = u & 0x7FFFFFFFu;
  if (abs > 0x7F800000u) return static_cast<uint16_t>(sign | 0x7E00u);  // NaN
  if (abs >= 0x477FF000u) return static_cast<uint16_t>(sign | 0x7C00u);  // rounds past 65504: inf
  if (abs < 0x38800000u) {
    // Result is subnormal (or zero): value / 2^-24, rounded to nearest even.
    const float scaled = bits_float(abs) * 16777216.0f;  // exact: power-of-two scaling
    const float r = std::nearbyint(scaled);              // default rounding mode: ties to even
    return static_cast<uint16_t>(sign | static_cast<uint16_t>(r));
  }
  const uint32_t rounded = abs + 0xFFFu + ((abs >> 13) & 1u);
  return static_cast<uint16_t>(sign | ((rounded - 0x38000000u) >> 13));
}

// GGML Q8_0: 32 values per block, an f16 scale then 32 signed bytes.
constexpr int kQ8BlockValues = 32;
constexpr int kQ8BlockBytes = 34;

// Quantises 32 floats into one block the way GGML's reference quantiser does (scale = absmax/127,
// values rounded half away from zero with the unrounded scale).
inline void quantize_q8_0_block(const float* x, uint8_t* block) {
  float amax = 0.0f;
  for (int i = 0; i < kQ8BlockValues; ++i) {
    const float a = x[i] < 0 ? -x[i] : x[i];
    amax = a > amax ? a : amax;
  }
  const float d = amax / 127.0f;
  const float id = d != 0.0f ? 1.0f / d : 0.0f;
  const uint16_t dh = f32_to_f16(d);
  std::memcpy(block, &dh, 2);
  for (int i = 0; i < kQ8BlockValues; ++i) {
    // roundf without the library call: |v| <= 127 (plus rounding), so truncation to int is exact
    // and v - trunc(v) is exact too.
    const float v = x[i] * id;
    int q = static_cast<int>(v);
    const float frac = v - static_cast<float>(q);
    if (frac >= 0.5f) ++q;
    else if (frac <= -0.5f) --q;
    q = q > 127 ? 127 : q < -127 ? -127 : q;
    block[2 + i] = static_cast<uint8_t>(static_cast<int8_t>(q));
  }
}

inline float q8_0_value(const uint8_t* block, int i) {
  uint16_t dh;
  std::memcpy(&dh, block, 2);
  return f16_to_f32(dh) * static_cast<float>(static_cast<int8_t>(block[2 + i]));
}

}  // namespace ninfer::models
