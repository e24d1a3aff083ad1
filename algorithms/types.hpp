// Vocabulary shared by every layer: collectives, datatypes, reduction ops.
// Names here are the CLI values and the CSV column values; they are only ever
// added to, never renamed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

namespace cb {

enum class Collective : std::uint8_t { allreduce, reduce_scatter, allgather, alltoall };
inline constexpr Collective kAllCollectives[] = {
    Collective::allreduce, Collective::reduce_scatter, Collective::allgather,
    Collective::alltoall};

// int16/uint16 came last (MPI_SHORT and friends through the PMPI library);
// the order of the earlier ones is kept.
enum class DataType : std::uint8_t {
  int8, uint8, int32, uint32, int64, uint64, fp16, bf16, fp32, fp64, int16, uint16
};
inline constexpr DataType kAllDataTypes[] = {
    DataType::int8,  DataType::uint8, DataType::int32, DataType::uint32,
    DataType::int64, DataType::uint64, DataType::fp16, DataType::bf16,
    DataType::fp32,  DataType::fp64,  DataType::int16, DataType::uint16};

// avg is executed as sum followed by one division by p of the final result
// (the registry appends that step), as NCCL's ncclAvg does.
// land/lor/lxor (result 1 or 0) and band/bor/bxor are MPI's logical and
// bitwise ops, defined on the integer datatypes only (op_applies); they are
// what the PMPI library needs for MPI_LAND ... MPI_BXOR.
enum class ReduceOp : std::uint8_t { sum, prod, min, max, avg, land, lor, lxor, band, bor, bxor };
// The arithmetic ops, defined on every datatype: what "--op all" sweeps.
inline constexpr ReduceOp kAllReduceOps[] = {ReduceOp::sum, ReduceOp::prod, ReduceOp::min,
                                             ReduceOp::max, ReduceOp::avg};
// The logical and bitwise ops (integers only).
inline constexpr ReduceOp kIntegerOnlyOps[] = {ReduceOp::land, ReduceOp::lor, ReduceOp::lxor,
                                               ReduceOp::band, ReduceOp::bor, ReduceOp::bxor};

// Canonical names: "allreduce", "reduce_scatter", "allgather", "alltoall".
std::string_view to_string(Collective c);
// Canonical names: "int8" ... "fp16", "bf16", "fp32", "fp64", "int16", "uint16".
std::string_view to_string(DataType t);
// "sum", "prod", "min", "max", "avg", "land", "lor", "lxor", "band", "bor", "bxor".
std::string_view to_string(ReduceOp o);

// Parsers accept the canonical name plus the aliases nccl-tests users type
// (float, double, half, bfloat16, int, char ...). On failure they throw
// cb::UsageError whose message names the bad value and lists the valid ones.
Collective parse_collective(std::string_view name);
DataType parse_datatype(std::string_view name);
ReduceOp parse_reduce_op(std::string_view name);

// Size of one element in bytes.
std::size_t element_size(DataType t);
bool is_floating(DataType t);

// Whether `op` is defined on `t`: the arithmetic ops on every datatype, the
// logical and bitwise ones on integers only.
bool op_applies(ReduceOp op, DataType t);
// Throws UsageError ("op band is defined on integer datatypes only, not fp32")
// unless op_applies(op, t).
void require_op_applies(ReduceOp op, DataType t);

// Whether the collective combines data with a reduction operator.
bool is_reducing(Collective c);

// Bad user input (unknown name, undefined pair, bad size...). Its what() is one
// line that names the bad value and what is accepted; the CLI prints it and
// exits non-zero.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace cb
