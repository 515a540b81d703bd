#include <catch2/catch.hpp>

#include "tracesql/db.h"
#include "tracesql/render.h"
#include "tracesql/short_name.h"

using namespace tracesql;

namespace {
constexpr const char* kElementwise =
    "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char*, 1> >"
    "(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)";

std::string RenderWith(const char* sql, OutputMode mode, size_t width, bool ascii = false) {
  Db db = Db::Open(":memory:", true);
  Stmt s = db.Prepare(sql);
  RenderOptions o;
  o.mode = mode;
  o.max_width = width;
  o.ascii = ascii;
  std::string out;
  RenderStatement(s.get(), o, out);
  return out;
}
}  // namespace

TEST_CASE("short name: namespaces, return type, templates and parameters dropped", "[names]") {
  CHECK(ShortName(kElementwise) == "vectorized_elementwise_kernel");
  CHECK(ShortName("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)") ==
        "ncclKernel_AllReduce_RING_LL_Sum_float");
  CHECK(ShortName("void (anonymous namespace)::softmax_warp_forward<float, float, float, 1, false, false>(float*, "
                  "float const*, int, int, int, bool const*, int, bool)") == "softmax_warp_forward");
  CHECK(ShortName("void at::native::(anonymous namespace)::CatArrayBatchedCopy<float, unsigned int, 1, 128, 1>("
                  "float*, at::native::(anonymous namespace)::CatArrInputTensorMetadata<float, unsigned int, 128, 1>, "
                  "int, unsigned int)") == "CatArrayBatchedCopy");
  CHECK(ShortName("aten::mm") == "mm");
  CHECK(ShortName("void foo<int>(int) const") == "foo");
  // A lambda in the template arguments and a lambda's own call operator.
  CHECK(ShortName("void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl<at::native::"
                  "BinaryFunctor<float, float, float, at::native::MulFunctor<float> > >(at::TensorIteratorBase&, "
                  "at::native::BinaryFunctor<float, float, float, at::native::MulFunctor<float> > const&)::"
                  "{lambda(int)#1}>(int, at::native::gpu_kernel_impl<at::native::BinaryFunctor<float, float, float, "
                  "at::native::MulFunctor<float> > >(at::TensorIteratorBase&, at::native::BinaryFunctor<float, "
                  "float, float, at::native::MulFunctor<float> > const&)::{lambda(int)#1})") == "elementwise_kernel");
}

TEST_CASE("short name: generic wrappers name what they wrap", "[names]") {
  CHECK(ShortName("void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x64_16x4_nn_align4>("
                  "cutlass_80_tensorop_s1688gemm_256x64_16x4_nn_align4::Params)") ==
        "cutlass_80_tensorop_s1688gemm_256x64_16x4_nn_align4");
  CHECK(ShortName("void cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<cute::tuple<int, int, int>, "
                  "float> >(cutlass::gemm::kernel::GemmUniversal<cute::tuple<int, int, int>, float>::Params)") ==
        "GemmUniversal");
  CHECK(ShortName("std::enable_if<!(false), void>::type internal::gemvx::kernel<int, int, float, float, float, "
                  "float, false, true, true, false, 7, cublasGemvParams<cublasGemvTensorStridedBatched<float const>, "
                  "cublasGemvTensorStridedBatched<float>, float> >(cublasGemvParams<"
                  "cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float>, float>)") ==
        "gemvx::kernel");
}

TEST_CASE("short name: text that is not a C++ name is kept", "[names]") {
  for (const char* s : {"Memcpy HtoD (Pageable -> Device)", "Memset (Device)", "ProfilerStep#3",
                        "torch/nn/modules/module.py(1501): _call_impl", "ampere_sgemm_128x64_nn",
                        "<built-in method to of Tensor object at 0x7f>", "", "a (b", "f(x) + 1", "x>y)"}) {
    CHECK(ShortName(s) == s);
    CHECK(CompactName(s) == s);
  }
}

TEST_CASE("compact name keeps template arguments without namespaces", "[names]") {
  CHECK(CompactName(kElementwise) == "vectorized_elementwise_kernel<4, FillFunctor<float>, Array<char*, 1> >");
  CHECK(CompactName("void at::native::(anonymous namespace)::f<at::A<int>::type>(int)") == "f<type>");
  CHECK(FitName(kElementwise, 36) == "vectorized_elementwise_kernel<4, Fi…");
  CHECK(FitName("short", 36) == "short");
  CHECK(FitName("Memcpy HtoD (Pageable -> Device)", 12) == "Memcpy HtoD…");
}

TEST_CASE("box cuts a long kernel name keeping its own name", "[names][render]") {
  std::string sql = std::string("SELECT '") + kElementwise + "' AS name, 5 AS n";
  std::string out = RenderWith(sql.c_str(), OutputMode::kBox, 40);
  CHECK(out.find("│ vectorized_elementwise_kernel<4… │ 5 │") != std::string::npos);
  CHECK(out.find("void at::native") == std::string::npos);
}

TEST_CASE("bar: bars of the last numeric column, labels from the first text column", "[render][bar]") {
  const char* sql = "SELECT 'alpha' AS name, 3 AS calls, 100 AS total UNION ALL SELECT 'beta', 1, 50 "
                    "UNION ALL SELECT 'gamma', 2, 0";
  CHECK(RenderWith(sql, OutputMode::kBar, 30) ==
        "name                     total\n"
        "alpha│██████████████████   100\n"
        "beta │█████████             50\n"
        "gamma│                       0\n");
  CHECK(RenderWith(sql, OutputMode::kBar, 30, /*ascii=*/true) ==
        "name                     total\n"
        "alpha|##################   100\n"
        "beta |#########             50\n"
        "gamma|                       0\n");
  // Eighths of a block; NULL and negative values draw nothing.
  CHECK(RenderWith("SELECT 'a' AS k, 8 AS v UNION ALL SELECT 'b', 1 UNION ALL SELECT 'c', NULL "
                   "UNION ALL SELECT 'd', -3", OutputMode::kBar, 12) ==
        "k          v\n"
        "a│███████  8\n"
        "b│▉        1\n"
        "c│          \n"
        "d│        -3\n");
  CHECK_THROWS_WITH(RenderWith("SELECT 'a' AS k, 'b' AS t", OutputMode::kBar, 40),
                    "bar format: the result has no numeric column to draw");
  CHECK(RenderWith("SELECT 'a' AS k, 1 AS v WHERE 0", OutputMode::kBar, 40) == "v\n");
}

TEST_CASE("bar: a time series is one sparkline per series", "[render][bar]") {
  const char* sql = "SELECT 1 AS device, 0 AS bucket, 0.0 AS pct UNION ALL SELECT 1, 1, 50.0 "
                    "UNION ALL SELECT 1, 2, 100.0 UNION ALL SELECT 2, 0, 100.0 UNION ALL SELECT 2, 1, 0.0";
  CHECK(RenderWith(sql, OutputMode::kBar, 40) ==
        "pct by bucket: min 0.0, max 100.0\n"
        "device=1 ▁▅█\n"
        "device=2 █▁\n");
  CHECK(RenderWith(sql, OutputMode::kBar, 40, true) ==
        "pct by bucket: min 0.0, max 100.0\n"
        "device=1 _=#\n"
        "device=2 #_\n");
}
