// The function table each kernel variant exports; dispatch.cpp picks one at run time. Each
// variant lives in its own translation unit, compiled with its own target flags, and keeps
// its helpers in an anonymous namespace and off shared templates, so no function compiled
// for AVX2 or AVX-512 can be merged into code that runs on a CPU without it.
#pragma once

#include "dopant/adamw_kernels/kernels.hpp"

namespace dopant::adamw_kernels::detail {

struct VariantKernels {
  void (*step)(ParamDtype type, const StepScalars& scalars, const TensorRefs& tensor,
               size_t begin, size_t end);
  void (*widen)(ParamDtype type, const void* src, float* dst, size_t n);
  void (*narrow)(ParamDtype type, const float* src, void* dst, size_t n);
};

// Calls body.template operator()<T>() with T the compile-time value of `type`.
template <typename Body>
void visit_param_type(ParamDtype type, Body&& body) {
  switch (type) {
    case ParamDtype::f32: return body.template operator()<ParamDtype::f32>();
    case ParamDtype::bf16: return body.template operator()<ParamDtype::bf16>();
    case ParamDtype::f16: return body.template operator()<ParamDtype::f16>();
  }
}

extern const VariantKernels reference_kernels;
extern const VariantKernels scalar_kernels;
extern const VariantKernels avx2_kernels;
extern const VariantKernels avx512_kernels;

}  // namespace dopant::adamw_kernels::detail
