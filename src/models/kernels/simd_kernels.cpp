#include "models/kernels/simd_kernels.h"

#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include "models/dtype_convert.h"

namespace ninfer::models::kernels {

const char* isa_name(Isa isa) {
  switch (isa) {
    case Isa::Scalar:
      return "scalar";
    case Isa::Avx2:
      return "avx2";
    case Isa::Avx512:
      return "avx512";
    case Isa::Amx:
      return "amx";
  }
  return "?";
}

#if defined(__x86_64__) || defined(__i386__)
namespace {
// CPUID leaf 1, ECX bit 29; clang 14's __builtin_cpu_supports has no "f16c".
bool cpu_has_f16c() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  return __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & bit_F16C) != 0;
}

// AVX512_BF16: CPUID leaf 7, subleaf 1, EAX bit 5.
bool cpu_has_avx512_bf16() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  return __get_cpuid_count(7, 1, &eax, &ebx, &ecx, &edx) && (eax & (1u << 5)) != 0;
}

// AMX-BF16, AMX-TILE and AMX-INT8 (CPUID leaf 7, EDX bits 22, 24 and 25), and Linux's permission
// for this process to use the 8 KiB of tile state (asked once; the kernel refuses when it or the
// hypervisor does not save that state).
bool cpu_has_amx() {
  static const bool ok = [] {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return false;
    if ((edx & (1u << 22)) == 0 || (edx & (1u << 24)) == 0 || (edx & (1u << 25)) == 0) return false;
    // AVX512_BF16 (leaf 7, subleaf 1, EAX bit 5): the conversions that split activations into bf16 parts.
    unsigned eax1 = 0, ebx1 = 0, ecx1 = 0, edx1 = 0;
    if (!__get_cpuid_count(7, 1, &eax1, &ebx1, &ecx1, &edx1) || (eax1 & (1u << 5)) == 0) return false;
#if defined(__linux__) && defined(__x86_64__)
    constexpr long kArchReqXcompPerm = 0x1023, kXfeatureXtiledata = 18;
    return syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) == 0;
#else
    return false;
#endif
  }();
  return ok;
}
}  // namespace
#endif

bool isa_supported(Isa isa) {
  switch (isa) {
    case Isa::Scalar:
      return true;
#if defined(__x86_64__) || defined(__i386__)
    case Isa::Avx2:
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && cpu_has_f16c();
    case Isa::Avx512:
      // VNNI for the Q8_0 block dots (Cascade Lake, Ice Lake, Zen 4 and later; Skylake-X runs AVX2).
      return isa_supported(Isa::Avx2) && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
             __builtin_cpu_supports("avx512vnni");
    case Isa::Amx:
      return isa_supported(Isa::Avx512) && __builtin_cpu_supports("avx512bw") && cpu_has_amx();
#else
    default:
      return false;
#endif
  }
  return false;
}

namespace {

Isa detect() {
  Isa best = Isa::Scalar;
  if (isa_supported(Isa::Amx)) {
    best = Isa::Amx;
  } else if (isa_supported(Isa::Avx512)) {
    best = Isa::Avx512;
  } else if (isa_supported(Isa::Avx2)) {
    best = Isa::Avx2;
  }
  // A cap for testing the narrower paths on a wide machine.
  if (const char* cap = std::getenv("NINFER_ISA")) {
    const std::string c = cap;
    const Isa cap_isa = c == "scalar" ? Isa::Scalar : c == "avx2" ? Isa::Avx2 : c == "avx512" ? Isa::Avx512 : Isa::Amx;
    if (cap_isa < best) best = cap_isa;
  }
  return best;
}

}  // namespace

Isa best_isa() {
  static const Isa isa = detect();
  return isa;
}

const KernelTable& kernel_table(Isa isa) {
  if (!isa_supported(isa)) throw std::invalid_argument(std::string("CPU does not support ") + isa_name(isa));
  switch (isa) {
    case Isa::Avx2:
      return avx2::kTable;
    case Isa::Avx512:
      return avx512::kTable;
    case Isa::Amx:
      return amx::kTable;
    case Isa::Scalar:
      break;
  }
  return scalar::kTable;
}

void (*bf16_prompt_attention(Isa isa))(const CausalAttentionArgs& args) {
#if defined(__x86_64__) || defined(__i386__)
  if (isa == Isa::Avx512 && isa_supported(isa) && cpu_has_avx512_bf16()) return &avx512_bf16::causal_attention;
#else
  (void)isa;
#endif
  return nullptr;
}

void (*int8_score_prompt_attention(Isa isa))(const CausalAttentionArgs& args) {
#if defined(__x86_64__) || defined(__i386__)
  if (bf16_prompt_attention(isa) != nullptr) return &avx512_bf16::causal_attention_int8_scores;
#else
  (void)isa;
#endif
  return nullptr;
}

const KernelTable& best_kernels() {
  static const KernelTable& table = kernel_table(best_isa());
  return table;
}

void convert_row(DType dtype, const void* src, int64_t n, float* dst) {
  const auto* p = static_cast<const uint8_t*>(src);
  switch (dtype) {
    case DType::F32:
      std::memcpy(dst, p, static_cast<size_t>(n) * 4);
      return;
    case DType::F16:
    case DType::BF16:
      for (int64_t i = 0; i < n; ++i) {
        uint16_t h;
        std::memcpy(&h, p + 2 * i, 2);
        dst[i] = dtype == DType::F16 ? f16_to_f32(h) : bf16_to_f32(h);
      }
      return;
    case DType::Q8_0:
      for (int64_t b = 0; b < n / kQ8BlockValues; ++b) {
        const uint8_t* blk = p + b * kQ8BlockBytes;
        for (int j = 0; j < kQ8BlockValues; ++j) dst[b * kQ8BlockValues + j] = q8_0_value(blk, j);
      }
      return;
  }
}

}  // namespace ninfer::models::kernels
