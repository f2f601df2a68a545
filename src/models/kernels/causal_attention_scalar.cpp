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
  NINFER_VEC_OP float first(reg a) { return a; }
  NINFER_VEC_OP float hmax(reg a) { return a; }
  NINFER_VEC_OP reg load_f16(const uint16_t* p) { return f16_to_f32(*p); }
};

#include "models/kernels/causal_attention_body.inc"

}  // namespace ninfer::models::kernels::scalar
