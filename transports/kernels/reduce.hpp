// Local reduction kernels: the gamma term of every reducing schedule.
//
// Counts are in ELEMENTS of the datatype, never bytes. dst and src must not
// overlap (the loops are compiled as if restrict-qualified); count 0 is a no-op.
//
// Semantics per datatype:
//  - Integers: sum and prod wrap modulo 2^bits, for signed types too (computed
//    through the unsigned type, so overflow is defined, two's complement).
//  - fp16 / bf16: each element is widened to float, combined, and rounded back
//    to nearest even; for these ops that is the correctly rounded result.
//  - fp32 / fp64: plain IEEE arithmetic in the type itself.
//  - A NaN operand gives a NaN result. Which payload a sum or product of two
//    NaNs carries is unspecified (the compiler may evaluate a + b as b + a).
//  - Float min / max propagate NaN: if either operand is a NaN the result is a
//    NaN (src's if src is one, else dst's). Between -0 and +0 min gives -0 and
//    max +0, whichever is dst: every op but a NaN payload is commutative bit
//    for bit, so two ranks that combine the same two operands in opposite
//    roles get the same bits (all-reduce results must agree on every rank).
//  - ReduceOp::avg reduces as sum; the single division by p at the end is
//    divide_inplace.
//  - land / lor / lxor give 1 or 0 (a nonzero operand is true), band / bor /
//    bxor the C bitwise operators: MPICH's MPI_LAND ... MPI_BXOR. Integer
//    datatypes only (op_applies); a float is an internal error.
#pragma once

#include <cstddef>

#include "algorithms/types.hpp"

namespace cb {

// dst[i] = dst[i] (op) src[i] for i in [0, count).
void reduce_inplace(DataType dtype, ReduceOp op, void* dst, const void* src, std::size_t count);

// dst[i] = a[i] (op) b[i] for i in [0, count), in one pass that reads a and b
// and writes dst once: the stores are non-temporal where the CPU has them
// (x86-64; fenced before the call returns), so a destination larger than the
// caches is not first read into them (write allocate) and its lines do not
// linger dirty in this core's cache for the next reader to fetch from there.
// Bit for bit what copying a into dst and then reduce_inplace(dst, b) gives
// (the IPC transport's fused copy-reduce, algorithms/fuse.hpp). dst is a
// itself (then it is reduce_inplace(dst, b) with streaming stores: the IPC
// transport's large reduce-receives, whose peer reads dst next) or overlaps
// neither a nor b, and never overlaps b. Slower than the plain calls on
// buffers that fit in the cache, whose next reader then misses: the caller
// decides from the size.
void reduce_into_streaming(DataType dtype, ReduceOp op, void* dst, const void* a, const void* b,
                           std::size_t count);

// dst[i] = dst[i] / p for i in [0, count), p >= 1: the final step of
// ReduceOp::avg. Integers divide truncating toward zero (C++ '/'); floats
// compute x / p in the type (fp16/bf16: in float, rounded to nearest even).
void divide_inplace(DataType dtype, void* dst, std::size_t count, int p);

}  // namespace cb
