// Portable instance of the causal attention kernel: one float per "register", for CPUs without AVX2
// and as the baseline the SIMD versions are tested against.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "models/dtype_convert.h"
#include "models/kernels/causal_attention.h"
#include "models/kernels/float_vec_scalar.h"

#define NINFER_KERNEL_TARGET
#define NINFER_VEC_OP __attribute__((always_inline)) static inline

namespace ninfer::models::kernels::scalar {

struct AV : FloatVec {
  static constexpr int kScoreRows = 2;
  static constexpr int kScoreVecs = 4;
  static constexpr int kValueRows = 2;
  static constexpr int kValueVecs = 2;
  NINFER_VEC_OP reg sub(reg a, reg b) { return a - b; }
  NINFER_VEC_OP reg max(reg a, reg b) { return a > b ? a : b; }
  NINFER_VEC_OP float first(reg a) { return a; }
  NINFER_VEC_OP float hmax(reg a) { return a; }
  // 1.5 * 2^23: adding it leaves no fraction bits, so the sum is rounded to an integer (to nearest
  // even, the default mode); exact for |a| < 2^22, far more than exp's exponents need.
  NINFER_VEC_OP reg round(reg a) { return (a + 12582912.0f) - 12582912.0f; }
  NINFER_VEC_OP reg pow2(reg n) {
    const uint32_t bits = static_cast<uint32_t>(static_cast<int32_t>(n) + 127) << 23;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
  }
  NINFER_VEC_OP reg keep_ge(reg x, reg bound, reg y) { return x >= bound ? y : 0.0f; }
  NINFER_VEC_OP reg load_f16(const uint16_t* p) { return f16_to_f32(*p); }
};

#include "models/kernels/causal_attention_body.inc"

}  // namespace ninfer::models::kernels::scalar
