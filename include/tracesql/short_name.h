// Readable names for C++ symbols as GPU kernels are named: namespaces, return type, template
// arguments and the parameter list dropped. One implementation for the short_names table, the
// report and the table renderer when it must cut a name.
#ifndef TRACESQL_SHORT_NAME_H_
#define TRACESQL_SHORT_NAME_H_

#include <string>
#include <string_view>

namespace tracesql {

// The bare name of a function signature:
//   "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, ...>(int, ...)"
//     -> "vectorized_elementwise_kernel"
//   "void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_64x64_32x6_nn_align1>(Params)"
//     -> "cutlass_80_tensorop_s1688gemm_64x64_32x6_nn_align1" (a generic wrapper's first template
//        argument: Kernel, Kernel2, device_kernel, kernel; when that argument is a builtin type
//        the enclosing name is kept: "internal::gemvx::kernel<int, ...>(...)" -> "gemvx::kernel")
//   "aten::mm" -> "mm"
// Text that does not look like a C++ name ("Memcpy HtoD (Pageable -> Device)", "ProfilerStep#3",
// "module.py(12): forward") comes back unchanged.
std::string ShortName(std::string_view name);

// The name without namespaces, return type and parameter list, template arguments kept (their own
// namespaces dropped): "vectorized_elementwise_kernel<4, FillFunctor<float>, Array<char*, 2>>".
// Starts with ShortName's bare name (except for the generic wrappers); unchanged for other text.
std::string CompactName(std::string_view name);

// name cut to width terminal columns keeping what tells it apart: the whole name when it fits, else
// CompactName when it fits, else CompactName cut with a trailing "…".
std::string FitName(std::string_view name, size_t width);

}  // namespace tracesql

#endif  // TRACESQL_SHORT_NAME_H_
