// Rows of fp32 stored as f16 (IEEE binary16 bits), as the KV cache keeps keys and values: the
// F16C / AVX-512 conversion, bit for bit what f32_to_f16 (dtype_convert.h) gives one value at a time
// (round to nearest even, overflow to infinity, and every NaN as the sign and 0x7E00), at a fraction
// of its branches per element.
#pragma once

#include <cstdint>

namespace ninfer::models::kernels {

// out[i * stride] = f32_to_f16(x[i]) for i < n.
void f16_row_portable(const float* x, int64_t n, uint16_t* out, int64_t stride);

namespace avx2 {
void f16_row(const float* x, int64_t n, uint16_t* out, int64_t stride);  // needs F16C
}
namespace avx512 {
void f16_row(const float* x, int64_t n, uint16_t* out, int64_t stride);
}

}  // namespace ninfer::models::kernels
