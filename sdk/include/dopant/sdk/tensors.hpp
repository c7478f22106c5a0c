// dopant SDK — DLTensor helpers: dtype constants and names, element counts and byte sizes
// (checked: a shape from a caller never wraps 64 bits), shape comparison and text, the
// compact row-major check, typed data pointers, and a 2-D view of a caller's buffer.
#pragma once

#include <dopant/sdk/errors.hpp>

#include <dlpack/dlpack.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace dopant::sdk {

inline constexpr DLDataType kFloat32{kDLFloat, 32, 1};
inline constexpr DLDataType kFloat16{kDLFloat, 16, 1};
inline constexpr DLDataType kBFloat16{kDLBfloat, 16, 1};
inline constexpr DLDataType kInt32{kDLInt, 32, 1};
inline constexpr DLDataType kInt64{kDLInt, 64, 1};
// One byte per bool: DLPack 1.x's kDLBool (6), which Debian's DLPack 0.6 does not name yet.
inline constexpr DLDataType kBool{6, 8, 1};

constexpr bool same_dtype(DLDataType a, DLDataType b) {
  return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes;
}
inline bool is_fp32(const DLTensor& t) { return same_dtype(t.dtype, kFloat32); }
inline bool is_fp16(const DLTensor& t) { return same_dtype(t.dtype, kFloat16); }
inline bool is_bf16(const DLTensor& t) { return same_dtype(t.dtype, kBFloat16); }

// "fp32", "bf16", "fp16", "int32", "bool", ...; other types as "code<c>x<bits>x<lanes>".
inline std::string dtype_name(DLDataType dtype) {
  if (same_dtype(dtype, kBool)) return "bool";
  if (dtype.lanes == 1) {
    switch (dtype.code) {
      case kDLFloat: return "fp" + std::to_string(dtype.bits);
      case kDLBfloat: return "bf" + std::to_string(dtype.bits);
      case kDLInt: return "int" + std::to_string(dtype.bits);
      case kDLUInt: return "uint" + std::to_string(dtype.bits);
      default: break;
    }
  }
  return "code" + std::to_string(dtype.code) + "x" + std::to_string(dtype.bits) + "x" +
         std::to_string(dtype.lanes);
}

// The most bytes a tensor may span: 2^48 (256 TiB), beyond any device's memory. Under it,
// every size a plugin derives per element (a few fp32 state arrays, strides in bytes) stays
// far inside 64 bits, so plugins may multiply counts without checking each product.
inline constexpr uint64_t kMaxTensorBytes = uint64_t{1} << 48;

constexpr size_t element_bytes(DLDataType dtype) {
  return (static_cast<size_t>(dtype.bits) * dtype.lanes + 7) / 8;
}

std::string shape_string(const DLTensor& t);

// Bytes the elements of `t` span; fails with DPT_INVALID_ARGUMENT naming `what` (e.g.
// "tensor `w`") when an extent is negative or the size passes kMaxTensorBytes.
inline uint64_t checked_byte_size(const DLTensor& t, const std::string& what = "tensor") {
  const auto refuse = [&](const char* reason) {
    fail(DPT_INVALID_ARGUMENT, what + " of shape " + shape_string(t) + ": " + reason);
  };
  if (t.ndim < 0 || (t.ndim > 0 && t.shape == nullptr)) refuse("has no valid shape");
  for (int i = 0; i < t.ndim; ++i) {
    if (t.shape[i] < 0) refuse("has a negative extent");
  }
  for (int i = 0; i < t.ndim; ++i) {
    if (t.shape[i] == 0) return 0;  // empty, whatever the other extents
  }
  uint64_t count = 1;
  for (int i = 0; i < t.ndim; ++i) {
    if (__builtin_mul_overflow(count, static_cast<uint64_t>(t.shape[i]), &count) || count > kMaxTensorBytes) {
      refuse("spans more than 2^48 bytes (256 TiB), the most a tensor may");
    }
  }
  uint64_t bytes = 0;
  if (__builtin_mul_overflow(count, element_bytes(t.dtype), &bytes) || bytes > kMaxTensorBytes) {
    refuse("spans more than 2^48 bytes (256 TiB), the most a tensor may");
  }
  return bytes;
}

// Product of the shape (1 for a scalar), checked as checked_byte_size checks it.
inline int64_t element_count(const DLTensor& t) {
  checked_byte_size(t);
  int64_t count = 1;
  for (int i = 0; i < t.ndim; ++i) count *= t.shape[i];
  return count;
}

inline uint64_t byte_size(const DLTensor& t) { return checked_byte_size(t); }

inline bool same_shape(const DLTensor& a, const DLTensor& b) {
  if (a.ndim != b.ndim) return false;
  for (int i = 0; i < a.ndim; ++i) {
    if (a.shape[i] != b.shape[i]) return false;
  }
  return true;
}

// "[3, 4]".
inline std::string shape_string(const DLTensor& t) {
  if (t.ndim > 0 && t.shape == nullptr) return "[NULL]";
  std::string text = "[";
  for (int i = 0; i < t.ndim; ++i) {
    if (i > 0) text += ", ";
    text += std::to_string(t.shape[i]);
  }
  return text + "]";
}

// True when the elements lie packed in row-major order (NULL strides count as compact;
// strides of dimensions of extent 1 are ignored).
inline bool is_contiguous(const DLTensor& t) {
  if (t.strides == nullptr) return true;
  int64_t expected = 1;
  for (int i = t.ndim - 1; i >= 0; --i) {
    if (t.shape[i] != 1 && t.strides[i] != expected) return false;
    if (__builtin_mul_overflow(expected, t.shape[i], &expected)) return false;
  }
  return true;
}

// First element, byte_offset applied.
template <typename T>
T* data_as(const DLTensor& t) {
  return reinterpret_cast<T*>(static_cast<char*>(t.data) + t.byte_offset);
}

// A borrowed, compact row-major [rows, columns] view of `data` on the CPU. The shape lives
// here and the DLTensor points into it, so a view is neither copied nor moved.
struct MatrixView {
  int64_t shape[2];
  DLTensor tensor;
  MatrixView(void* data, DLDataType dtype, int64_t rows, int64_t columns)
      : shape{rows, columns}, tensor{data, {kDLCPU, 0}, 2, dtype, shape, nullptr, 0} {}
  MatrixView(const MatrixView&) = delete;
  MatrixView& operator=(const MatrixView&) = delete;
};

}  // namespace dopant::sdk
