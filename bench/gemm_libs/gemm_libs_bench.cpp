// y = W x on the 0.6b shapes, timed for NInfer's kernels (parallel_matmul, any stored dtype) and for
// the sgemm of OpenBLAS and BLIS and the matmul primitive of oneDNN, at decode batches (weights read
// from memory: each call takes the next of enough copies to overflow the caches) and prefill
// batches. Prints one line per (shape, batch, threads, engine): the median time over the repeats,
// GFLOP/s and the weights' GB/s. Built and run as README.md in this folder says; not part of the
// main build.
//
// OpenBLAS and BLIS both define cblas_sgemm, so each is opened with dlopen and called through its
// own handle. oneDNN (built with OpenMP in Debian) is linked.
#include <dlfcn.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "dnnl.hpp"
#include "models/dtype_convert.h"
#include "models/kernels/parallel_matmul.h"
#include "models/kernels/simd_kernels.h"
#include "models/kernels/thread_pool.h"
#include "models/tensor.h"

namespace {

using ninfer::models::DType;
using ninfer::models::TensorView;
namespace kernels = ninfer::models::kernels;
using Clock = std::chrono::steady_clock;

struct Shape {
  const char* name;
  int64_t rows, cols;  // W is rows x cols: cols inputs, rows outputs
};

constexpr Shape kShapes[] = {
    {"k/v 1024x1024", 1024, 1024}, {"q 2048x1024", 2048, 1024},     {"o 1024x2048", 1024, 2048},
    {"gate/up 3072x1024", 3072, 1024}, {"down 1024x3072", 1024, 3072}, {"head 151936x1024", 151936, 1024},
};

// CBLAS enums as the standard fixes them.
constexpr int kRowMajor = 101, kNoTrans = 111, kTrans = 112;
using SgemmFn = void (*)(int, int, int, int, int, int, float, const float*, int, const float*, int, float, float*,
                         int);
using SetThreadsFn = void (*)(int);

struct Blas {
  std::string name;
  SgemmFn sgemm = nullptr;
  SetThreadsFn set_threads = nullptr;
};

Blas open_blas(const char* name, const char* file, const char* set_threads_symbol) {
  Blas b;
  b.name = name;
  void* h = dlopen(file, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    std::fprintf(stderr, "%s: %s\n", name, dlerror());
    return b;
  }
  b.sgemm = reinterpret_cast<SgemmFn>(dlsym(h, "cblas_sgemm"));
  b.set_threads = reinterpret_cast<SetThreadsFn>(dlsym(h, set_threads_symbol));
  return b;
}

// One weight matrix in several identical copies (so that decode calls read it from memory).
struct Copies {
  std::vector<std::vector<uint8_t>> data;
  size_t at(size_t i) const { return i % data.size(); }
};

Copies make_copies(const std::vector<float>& w, DType dtype, int64_t rows, int64_t cols, size_t footprint) {
  const size_t bytes = ninfer::models::row_bytes(dtype, cols) * static_cast<size_t>(rows);
  std::vector<uint8_t> one(bytes);
  if (dtype == DType::F32) {
    std::memcpy(one.data(), w.data(), bytes);
  } else if (dtype == DType::F16 || dtype == DType::BF16) {
    for (size_t i = 0; i < w.size(); ++i) {
      const uint16_t h = dtype == DType::F16 ? ninfer::models::f32_to_f16(w[i]) : ninfer::models::f32_to_bf16(w[i]);
      std::memcpy(one.data() + 2 * i, &h, 2);
    }
  } else {
    // Q8_0: per 32 values, an f16 scale max|v|/127 and int8 quotients.
    for (size_t b = 0; b < w.size() / 32; ++b) {
      float mx = 0;
      for (int j = 0; j < 32; ++j) mx = std::max(mx, std::fabs(w[b * 32 + j]));
      const float d = mx / 127.0f;
      const uint16_t h = ninfer::models::f32_to_f16(d);
      uint8_t* blk = one.data() + b * 34;
      std::memcpy(blk, &h, 2);
      for (int j = 0; j < 32; ++j) {
        blk[2 + j] = static_cast<uint8_t>(static_cast<int8_t>(d > 0 ? std::lround(w[b * 32 + j] / d) : 0));
      }
    }
  }
  Copies c;
  const size_t n = std::max<size_t>(1, (footprint + bytes - 1) / bytes);
  c.data.assign(n, one);
  return c;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Runs fn(call index) until `repeats` calls or ~2 s (at least 3), after one warm-up call.
double median_seconds(int repeats, const std::function<void(size_t)>& fn) {
  fn(0);
  std::vector<double> t;
  double total = 0;
  for (size_t i = 1; static_cast<int>(t.size()) < repeats && (t.size() < 3 || total < 2.0); ++i) {
    const auto t0 = Clock::now();
    fn(i);
    t.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
    total += t.back();
  }
  return median(t);
}

void report(const Shape& s, int64_t batch, int threads, const std::string& engine, double sec, size_t weight_bytes,
            double max_diff) {
  const double flop = 2.0 * s.rows * s.cols * batch;
  std::printf("%-18s B=%-4lld T=%d %-22s %9.3f ms %7.1f GFLOP/s %6.1f GB/s  maxdiff %.2g\n", s.name,
              static_cast<long long>(batch), threads, engine.c_str(), sec * 1e3, flop / sec / 1e9,
              static_cast<double>(weight_bytes) / sec / 1e9, max_diff);
  std::fflush(stdout);
}

double max_abs_diff(const std::vector<float>& a, const std::vector<float>& b) {
  double d = 0;
  for (size_t i = 0; i < a.size(); ++i) d = std::max(d, static_cast<double>(std::fabs(a[i] - b[i])));
  return d;
}

std::vector<int64_t> parse_list(const char* s) {
  std::vector<int64_t> v;
  while (s && *s) {
    char* end = nullptr;
    v.push_back(std::strtoll(s, &end, 10));
    s = *end ? end + 1 : end;
  }
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  // Arguments: shapes (indices into kShapes), batches, threads, engines, repeats.
  std::vector<int64_t> shapes = {0, 1, 2, 3, 4, 5}, batches = {1, 4, 8, 16, 128, 512}, threads = {1, 2};
  std::string engines = "ninfer-f32,ninfer-f16,ninfer-bf16,ninfer-q8_0,openblas,blis,onednn,onednn-s8,onednn-bf16,onednn-f16";
  int repeats = 15;
  size_t footprint = size_t{256} << 20;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i];
    if (k == "--shapes") shapes = parse_list(argv[i + 1]);
    if (k == "--batches") batches = parse_list(argv[i + 1]);
    if (k == "--threads") threads = parse_list(argv[i + 1]);
    if (k == "--engines") engines = argv[i + 1];
    if (k == "--repeats") repeats = std::atoi(argv[i + 1]);
    if (k == "--footprint-mib") footprint = std::strtoull(argv[i + 1], nullptr, 10) << 20;
  }
  auto wants = [&](const char* e) { return ("," + engines + ",").find(std::string(",") + e + ",") != std::string::npos; };
  const Blas openblas = open_blas("openblas", "libopenblas.so.0", "openblas_set_num_threads");
  const Blas blis = open_blas("blis", "libblis.so.4", "bli_thread_set_num_threads");
  std::printf("ISA %s; footprint %zu MiB per decode shape\n", kernels::isa_name(kernels::best_isa()), footprint >> 20);

  for (int64_t si : shapes) {
    const Shape& s = kShapes[si];
    std::vector<float> w(static_cast<size_t>(s.rows * s.cols));
    for (size_t i = 0; i < w.size(); ++i) w[i] = 0.1f * static_cast<float>(std::sin(0.37 * static_cast<double>(i)));
    const int64_t max_batch = *std::max_element(batches.begin(), batches.end());
    // Activation rows at the forward pass's padded stride: a stride of a multiple of 4 KiB would put
    // every row's same columns in the same L1 sets.
    const int64_t ldx = kernels::padded_stride(s.cols);
    std::vector<float> x(static_cast<size_t>(max_batch * ldx));
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(std::cos(0.11 * static_cast<double>(i)));
    const Copies w32 = make_copies(w, DType::F32, s.rows, s.cols, footprint);

    for (int64_t batch : batches) {
      if (s.rows > 100000 && batch > 128) continue;  // the head only ever sees the last prompt position
      std::vector<float> y_ref(static_cast<size_t>(batch * s.rows)), y(y_ref.size());
      for (int64_t t : threads) {
        const int th = static_cast<int>(t);
        kernels::ThreadPool pool(th);
        bool have_ref = false;
        for (DType dt : {DType::F32, DType::F16, DType::BF16, DType::Q8_0}) {
          const std::string name = std::string("ninfer-") + ninfer::models::dtype_name(dt);
          if (!wants(name.c_str())) continue;
          const Copies c = dt == DType::F32 ? w32 : make_copies(w, dt, s.rows, s.cols, footprint);
          std::vector<TensorView> views(c.data.size());
          for (size_t i = 0; i < views.size(); ++i) {
            views[i].dtype = dt;
            views[i].shape = {s.rows, s.cols};
            views[i].data = c.data[i].data();
          }
          const double sec = median_seconds(repeats, [&](size_t i) {
            const kernels::MatmulTarget tg[] = {{&views[c.at(i)], y.data(), s.rows, false}};
            kernels::parallel_matmul(pool, kernels::best_kernels(), tg, x.data(), ldx, batch);
          });
          if (!have_ref) y_ref = y, have_ref = true;
          report(s, batch, th, name, sec, c.data[0].size(), max_abs_diff(y, y_ref));
        }
        for (const Blas* b : {&openblas, &blis}) {
          if (!wants(b->name.c_str()) || !b->sgemm) continue;
          if (b->set_threads) b->set_threads(th);
          // Y[B x R] = X[B x C] * W^T, W row-major R x C.
          const double sec = median_seconds(repeats, [&](size_t i) {
            b->sgemm(kRowMajor, kNoTrans, kTrans, static_cast<int>(batch), static_cast<int>(s.rows),
                     static_cast<int>(s.cols), 1.0f, x.data(), static_cast<int>(ldx),
                     reinterpret_cast<const float*>(w32.data[w32.at(i)].data()), static_cast<int>(s.cols), 0.0f,
                     y.data(), static_cast<int>(s.rows));
          });
          report(s, batch, th, b->name + "-sgemm", sec, w32.data[0].size(), have_ref ? max_abs_diff(y, y_ref) : -1);
        }
        if (wants("onednn") || wants("onednn-s8")) {
          omp_set_num_threads(th);
          using tag = dnnl::memory::format_tag;
          using dt = dnnl::memory::data_type;
          dnnl::engine eng(dnnl::engine::kind::cpu, 0);
          dnnl::stream strm(eng);
          const dnnl::memory::dims src_dims = {batch, s.cols}, wei_dims = {s.cols, s.rows}, dst_dims = {batch, s.rows};
          if (wants("onednn")) {
            const dnnl::memory::desc src_md(src_dims, dt::f32, dnnl::memory::dims{ldx, 1}), wei_md(wei_dims, dt::f32, tag::ba),
                dst_md(dst_dims, dt::f32, tag::ab);
            const dnnl::matmul prim(dnnl::matmul::primitive_desc(dnnl::matmul::desc(src_md, wei_md, dst_md), eng));
            dnnl::memory src(src_md, eng, x.data()), dst(dst_md, eng, y.data());
            std::vector<dnnl::memory> wei;
            for (auto& d : w32.data) wei.emplace_back(wei_md, eng, const_cast<uint8_t*>(d.data()));
            const double sec = median_seconds(repeats, [&](size_t i) {
              prim.execute(strm, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei[w32.at(i)]}, {DNNL_ARG_DST, dst}});
              strm.wait();
            });
            report(s, batch, th, "onednn-f32", sec, w32.data[0].size(), have_ref ? max_abs_diff(y, y_ref) : -1);
          }
          for (const auto& [label, wdt, sdt] : {std::tuple{"onednn-s8", dt::s8, dt::u8}, std::tuple{"onednn-bf16", dt::bf16, dt::bf16},
                                                std::tuple{"onednn-f16", dt::f16, dt::f16}}) {
            if (!wants(label)) continue;
            try {
              // Only the speed of these is measured (their numerics differ); inputs are left as bytes.
              const dnnl::memory::desc src_md(src_dims, sdt, tag::ab), wei_md(wei_dims, wdt, tag::ba),
                  dst_md(dst_dims, dt::f32, tag::ab);
              const dnnl::matmul prim(dnnl::matmul::primitive_desc(dnnl::matmul::desc(src_md, wei_md, dst_md), eng));
              dnnl::memory src(src_md, eng), dst(dst_md, eng, y.data());
              std::memset(src.get_data_handle(), 1, src_md.get_size());
              const size_t wbytes = wei_md.get_size();
              std::vector<std::vector<uint8_t>> wc(std::max<size_t>(1, (footprint + wbytes - 1) / wbytes),
                                                   std::vector<uint8_t>(wbytes, 1));
              std::vector<dnnl::memory> wei;
              for (auto& d : wc) wei.emplace_back(wei_md, eng, d.data());
              const double sec = median_seconds(repeats, [&](size_t i) {
                prim.execute(strm, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei[i % wei.size()]}, {DNNL_ARG_DST, dst}});
                strm.wait();
              });
              report(s, batch, th, label, sec, wbytes, -1);
            } catch (const dnnl::error& e) {
              std::printf("%-18s B=%-4lld T=%d %-22s unsupported here (%s)\n", s.name, static_cast<long long>(batch), th,
                          label, e.what());
            }
          }
        }
      }
    }
  }
  return 0;
}
