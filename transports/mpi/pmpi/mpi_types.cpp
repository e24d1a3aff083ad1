#include "transports/mpi/pmpi/mpi_types.hpp"

#include <climits>
#include <cstdint>
#include <utility>

namespace cb::pmpi {
namespace {

// C integer types by size and signedness (char is signed or not as the
// compiler's, as MPICH computes MPI_CHAR in C `char`).
template <class Int>
constexpr DataType int_type() {
  static_assert(sizeof(Int) == 1 || sizeof(Int) == 2 || sizeof(Int) == 4 || sizeof(Int) == 8);
  constexpr bool is_signed = static_cast<Int>(-1) < 0;
  if constexpr (sizeof(Int) == 1) return is_signed ? DataType::int8 : DataType::uint8;
  if constexpr (sizeof(Int) == 2) return is_signed ? DataType::int16 : DataType::uint16;
  if constexpr (sizeof(Int) == 4) return is_signed ? DataType::int32 : DataType::uint32;
  return is_signed ? DataType::int64 : DataType::uint64;
}

// Which ops MPICH defines on a type: the arithmetic ones on floats, every op
// on integers, only the logical ones on MPI_C_BOOL, only the bitwise ones on
// MPI_BYTE.
enum class OpsOn : std::uint8_t { number, logical, bitwise };

struct TypeRow {
  MPI_Datatype type;
  DataType dtype;
  const char* name;
  OpsOn ops = OpsOn::number;
};

// Searched in order on every call: the commonest types first (OSU's
// benchmarks default to MPI_CHAR).
const TypeRow kTypes[] = {
    {MPI_FLOAT, DataType::fp32, "MPI_FLOAT"},
    {MPI_DOUBLE, DataType::fp64, "MPI_DOUBLE"},
    {MPI_INT, int_type<int>(), "MPI_INT"},
    {MPI_CHAR, int_type<char>(), "MPI_CHAR"},
    {MPI_INT8_T, DataType::int8, "MPI_INT8_T"},
    {MPI_UINT8_T, DataType::uint8, "MPI_UINT8_T"},
    {MPI_INT32_T, DataType::int32, "MPI_INT32_T"},
    {MPI_UINT32_T, DataType::uint32, "MPI_UINT32_T"},
    {MPI_INT64_T, DataType::int64, "MPI_INT64_T"},
    {MPI_UINT64_T, DataType::uint64, "MPI_UINT64_T"},
    {MPI_SIGNED_CHAR, int_type<signed char>(), "MPI_SIGNED_CHAR"},
    {MPI_UNSIGNED_CHAR, int_type<unsigned char>(), "MPI_UNSIGNED_CHAR"},
    {MPI_UNSIGNED, int_type<unsigned>(), "MPI_UNSIGNED"},
    {MPI_LONG, int_type<long>(), "MPI_LONG"},
    {MPI_UNSIGNED_LONG, int_type<unsigned long>(), "MPI_UNSIGNED_LONG"},
    {MPI_LONG_LONG, int_type<long long>(), "MPI_LONG_LONG"},
    {MPI_LONG_LONG_INT, int_type<long long>(), "MPI_LONG_LONG_INT"},
    {MPI_UNSIGNED_LONG_LONG, int_type<unsigned long long>(), "MPI_UNSIGNED_LONG_LONG"},
    {MPI_SHORT, int_type<short>(), "MPI_SHORT"},
    {MPI_UNSIGNED_SHORT, int_type<unsigned short>(), "MPI_UNSIGNED_SHORT"},
    {MPI_INT16_T, DataType::int16, "MPI_INT16_T"},
    {MPI_UINT16_T, DataType::uint16, "MPI_UINT16_T"},
    {MPI_AINT, int_type<MPI_Aint>(), "MPI_AINT"},
    {MPI_OFFSET, int_type<MPI_Offset>(), "MPI_OFFSET"},
    {MPI_COUNT, int_type<MPI_Count>(), "MPI_COUNT"},
    {MPI_C_BOOL, DataType::uint8, "MPI_C_BOOL", OpsOn::logical},
    {MPI_BYTE, DataType::uint8, "MPI_BYTE", OpsOn::bitwise},
#ifdef MPIX_C_FLOAT16
    {MPIX_C_FLOAT16, DataType::fp16, "MPIX_C_FLOAT16"},
#endif
};

struct OpRow {
  MPI_Op op;
  std::optional<ReduceOp> ours;
  const char* name;
};

const OpRow kOps[] = {
    {MPI_SUM, ReduceOp::sum, "MPI_SUM"},   {MPI_PROD, ReduceOp::prod, "MPI_PROD"},
    {MPI_MIN, ReduceOp::min, "MPI_MIN"},   {MPI_MAX, ReduceOp::max, "MPI_MAX"},
    {MPI_LAND, ReduceOp::land, "MPI_LAND"}, {MPI_LOR, ReduceOp::lor, "MPI_LOR"},
    {MPI_LXOR, ReduceOp::lxor, "MPI_LXOR"}, {MPI_BAND, ReduceOp::band, "MPI_BAND"},
    {MPI_BOR, ReduceOp::bor, "MPI_BOR"},    {MPI_BXOR, ReduceOp::bxor, "MPI_BXOR"},
    {MPI_MINLOC, {}, "MPI_MINLOC"},       {MPI_MAXLOC, {}, "MPI_MAXLOC"},
    {MPI_REPLACE, {}, "MPI_REPLACE"},     {MPI_NO_OP, {}, "MPI_NO_OP"},
};

const OpRow* find_op(MPI_Op op) {
  for (const OpRow& row : kOps)
    if (row.op == op) return &row;
  return nullptr;
}

}  // namespace

std::optional<DataType> reduction_type(MPI_Datatype type) {
  for (const TypeRow& row : kTypes)
    if (row.type == type) return row.dtype;
  return std::nullopt;
}

std::optional<ReduceOp> builtin_op(MPI_Op op) {
  const OpRow* row = find_op(op);
  return row ? row->ours : std::nullopt;
}

bool is_user_op(MPI_Op op) { return find_op(op) == nullptr; }

bool op_defined_on(MPI_Datatype type, ReduceOp op) {
  const bool logical = op == ReduceOp::land || op == ReduceOp::lor || op == ReduceOp::lxor;
  const bool bitwise = op == ReduceOp::band || op == ReduceOp::bor || op == ReduceOp::bxor;
  for (const TypeRow& row : kTypes) {
    if (row.type != type) continue;
    switch (row.ops) {
      case OpsOn::number: return op_applies(op, row.dtype);
      case OpsOn::logical: return logical;
      case OpsOn::bitwise: return bitwise;
    }
  }
  return false;
}

std::optional<std::size_t> contiguous_size(MPI_Datatype type) {
  if (const auto d = reduction_type(type)) return element_size(*d);
  if (type == MPI_BYTE || type == MPI_CHAR) return 1;
  int size = 0;
  MPI_Aint lb = 0, extent = 0, true_lb = 0, true_extent = 0;
  if (PMPI_Type_size(type, &size) != MPI_SUCCESS ||
      PMPI_Type_get_extent(type, &lb, &extent) != MPI_SUCCESS ||
      PMPI_Type_get_true_extent(type, &true_lb, &true_extent) != MPI_SUCCESS)
    return std::nullopt;
  // A gap anywhere (a vector's stride, a struct's padding, a resized extent)
  // makes the true extent or the extent differ from the size.
  if (size <= 0 || lb != 0 || true_lb != 0 || extent != size || true_extent != size)
    return std::nullopt;
  return static_cast<std::size_t>(size);
}

std::string type_name(MPI_Datatype type) {
  for (const TypeRow& row : kTypes)
    if (row.type == type) return row.name;
  char name[MPI_MAX_OBJECT_NAME] = {};
  int len = 0;
  if (PMPI_Type_get_name(type, name, &len) == MPI_SUCCESS && len > 0)
    return std::string(name, static_cast<std::size_t>(len));
  return "a derived datatype";
}

std::string op_name(MPI_Op op) {
  const OpRow* row = find_op(op);
  return row ? row->name : "a user-defined op";
}

}  // namespace cb::pmpi
