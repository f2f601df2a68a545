// AVX-512F instance of the causal attention kernel: 16 floats per register, 32 registers, so score
// blocks of 6 queries x 32 keys and value blocks of 4 queries x 64 dims.
#include <algorithm>
#include <cstdint>
#include <cstring>

// GCC 12's AVX-512 intrinsics start from `__m512 __Y = __Y;` (_mm512_undefined_*), which it then
// reports as uninitialized inside target-attribute functions (GCC bug 105593, fixed in 13).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"  // a GCC-only warning
#endif
#include <immintrin.h>

#include "models/dtype_convert.h"
#include "models/kernels/causal_attention.h"
#include "models/kernels/causal_attention_vec_avx512.h"

#define NINFER_KERNEL_TARGET __attribute__((target("avx512f,avx2,fma")))

namespace ninfer::models::kernels::avx512 {

#include "models/kernels/causal_attention_body.inc"

}  // namespace ninfer::models::kernels::avx512

#pragma GCC diagnostic pop
