// Device reduction kernels: one grid-stride loop per (datatype, op), chosen
// at the launch, mirroring transports/kernels/reduce.cpp element by element
// so the CUDA backend's results are bit-identical to the host executor's.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "transports/ipc/cuda_ipc/reduce_kernels.hpp"

namespace cb::ipc {
namespace {

template <class T>
struct Native {
  using Storage = T;
  using Compute = T;
  __device__ static T load(T v) { return v; }
  __device__ static T store(T v) { return v; }
};
struct Half {
  using Storage = __half;
  using Compute = float;
  __device__ static float load(__half v) { return __half2float(v); }
  __device__ static __half store(float v) { return __float2half_rn(v); }
};
struct BFloat {
  using Storage = __nv_bfloat16;
  using Compute = float;
  __device__ static float load(__nv_bfloat16 v) { return __bfloat162float(v); }
  __device__ static __nv_bfloat16 store(float v) { return __float2bfloat16_rn(v); }
};

// Integer + and * through the unsigned type: defined wraparound (as the host).
// 16-bit types compute in unsigned int (65535 * 65535 overflows int).
template <class C>
using WrapT = std::conditional_t<sizeof(C) == 2, unsigned, std::make_unsigned_t<C>>;
template <class C>
__device__ C wrap_sum(C a, C b) {
  if constexpr (std::is_integral_v<C>) {
    using W = WrapT<C>;
    return static_cast<C>(static_cast<W>(static_cast<W>(a) + static_cast<W>(b)));
  } else {
    return a + b;
  }
}
template <class C>
__device__ C wrap_prod(C a, C b) {
  if constexpr (std::is_integral_v<C>) {
    using W = WrapT<C>;
    return static_cast<C>(static_cast<W>(static_cast<W>(a) * static_cast<W>(b)));
  } else {
    return a * b;
  }
}

struct Sum {
  template <class C> __device__ static C apply(C a, C b) { return wrap_sum(a, b); }
};
struct Prod {
  template <class C> __device__ static C apply(C a, C b) { return wrap_prod(a, b); }
};
// Equal operands (+0 and -0) give their bitwise OR (min: -0) or AND (max:
// +0), as on the host: min and max commute bit for bit.
template <class C>
using FloatBits = std::conditional_t<sizeof(C) == 4, std::uint32_t, std::uint64_t>;
template <class C>
__device__ C float_bits_or(C a, C b) {
  using U = FloatBits<C>;
  U x, y;
  memcpy(&x, &a, sizeof x);
  memcpy(&y, &b, sizeof y);
  x |= y;
  memcpy(&a, &x, sizeof x);
  return a;
}
template <class C>
__device__ C float_bits_and(C a, C b) {
  using U = FloatBits<C>;
  U x, y;
  memcpy(&x, &a, sizeof x);
  memcpy(&y, &b, sizeof y);
  x &= y;
  memcpy(&a, &x, sizeof x);
  return a;
}
struct Min {
  template <class C> __device__ static C apply(C a, C b) {
    if constexpr (std::is_floating_point_v<C>)
      return (b < a || b != b) ? b : (a == b ? float_bits_or(a, b) : a);
    else return b < a ? b : a;
  }
};
struct Max {
  template <class C> __device__ static C apply(C a, C b) {
    if constexpr (std::is_floating_point_v<C>)
      return (a < b || b != b) ? b : (a == b ? float_bits_and(a, b) : a);
    else return a < b ? b : a;
  }
};

// MPI's logical (1 or 0) and bitwise ops, integers only, as on the host.
struct LAnd {
  template <class C> __device__ static C apply(C a, C b) { return static_cast<C>(a != 0 && b != 0); }
};
struct LOr {
  template <class C> __device__ static C apply(C a, C b) { return static_cast<C>(a != 0 || b != 0); }
};
struct LXor {
  template <class C> __device__ static C apply(C a, C b) {
    return static_cast<C>((a != 0) != (b != 0));
  }
};
struct BAnd {
  template <class C> __device__ static C apply(C a, C b) { return static_cast<C>(a & b); }
};
struct BOr {
  template <class C> __device__ static C apply(C a, C b) { return static_cast<C>(a | b); }
};
struct BXor {
  template <class C> __device__ static C apply(C a, C b) { return static_cast<C>(a ^ b); }
};

template <class E, class Op>
__global__ void reduce_kernel(typename E::Storage* __restrict__ dst,
                              const typename E::Storage* __restrict__ src, std::size_t count) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride)
    dst[i] = E::store(Op::apply(E::load(dst[i]), E::load(src[i])));
}

template <class E>
__global__ void divide_kernel(typename E::Storage* dst, std::size_t count, int p) {
  using C = typename E::Compute;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    if constexpr (std::is_integral_v<C>) {
      using W = std::common_type_t<decltype(+C{}), int>;
      dst[i] = static_cast<C>(static_cast<W>(dst[i]) / static_cast<W>(p));
    } else {
      dst[i] = E::store(E::load(dst[i]) / static_cast<C>(p));
    }
  }
}

constexpr unsigned kThreads = 256;
unsigned blocks_for(std::size_t count) {
  const std::size_t blocks = (count + kThreads - 1) / kThreads;
  return static_cast<unsigned>(blocks < 4096 ? blocks : 4096);
}

template <class E>
cudaError_t reduce_as(ReduceOp op, void* dst, const void* src, std::size_t count,
                      cudaStream_t stream) {
  using S = typename E::Storage;
  auto* d = static_cast<S*>(dst);
  const auto* s = static_cast<const S*>(src);
  const unsigned blocks = blocks_for(count);
  switch (op) {
    case ReduceOp::sum:
    case ReduceOp::avg: reduce_kernel<E, Sum><<<blocks, kThreads, 0, stream>>>(d, s, count); break;
    case ReduceOp::prod: reduce_kernel<E, Prod><<<blocks, kThreads, 0, stream>>>(d, s, count); break;
    case ReduceOp::min: reduce_kernel<E, Min><<<blocks, kThreads, 0, stream>>>(d, s, count); break;
    case ReduceOp::max: reduce_kernel<E, Max><<<blocks, kThreads, 0, stream>>>(d, s, count); break;
    default:
      if constexpr (std::is_integral_v<typename E::Compute>) {
        switch (op) {
          case ReduceOp::land: reduce_kernel<E, LAnd><<<blocks, kThreads, 0, stream>>>(d, s, count); break;
          case ReduceOp::lor: reduce_kernel<E, LOr><<<blocks, kThreads, 0, stream>>>(d, s, count); break;
          case ReduceOp::lxor: reduce_kernel<E, LXor><<<blocks, kThreads, 0, stream>>>(d, s, count); break;
          case ReduceOp::band: reduce_kernel<E, BAnd><<<blocks, kThreads, 0, stream>>>(d, s, count); break;
          case ReduceOp::bor: reduce_kernel<E, BOr><<<blocks, kThreads, 0, stream>>>(d, s, count); break;
          case ReduceOp::bxor: reduce_kernel<E, BXor><<<blocks, kThreads, 0, stream>>>(d, s, count); break;
          default: return cudaErrorInvalidValue;
        }
      } else {
        return cudaErrorInvalidValue;  // logical/bitwise ops on a float
      }
  }
  return cudaGetLastError();
}

template <class F>
cudaError_t with_element(DataType dtype, F&& f) {
  switch (dtype) {
    case DataType::int8: return f(Native<std::int8_t>{});
    case DataType::uint8: return f(Native<std::uint8_t>{});
    case DataType::int32: return f(Native<std::int32_t>{});
    case DataType::uint32: return f(Native<std::uint32_t>{});
    case DataType::int64: return f(Native<std::int64_t>{});
    case DataType::uint64: return f(Native<std::uint64_t>{});
    case DataType::int16: return f(Native<std::int16_t>{});
    case DataType::uint16: return f(Native<std::uint16_t>{});
    case DataType::fp16: return f(Half{});
    case DataType::bf16: return f(BFloat{});
    case DataType::fp32: return f(Native<float>{});
    case DataType::fp64: return f(Native<double>{});
  }
  return cudaErrorInvalidValue;
}

}  // namespace

cudaError_t launch_reduce(DataType dtype, ReduceOp op, void* dst, const void* src,
                          std::size_t count, cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  return with_element(dtype, [&](auto e) {
    return reduce_as<decltype(e)>(op, dst, src, count, stream);
  });
}

cudaError_t launch_divide(DataType dtype, void* dst, std::size_t count, int p,
                          cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  return with_element(dtype, [&](auto e) {
    using E = decltype(e);
    divide_kernel<E><<<blocks_for(count), kThreads, 0, stream>>>(
        static_cast<typename E::Storage*>(dst), count, p);
    return cudaGetLastError();
  });
}

}  // namespace cb::ipc
