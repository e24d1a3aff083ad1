#include "algorithms/types.hpp"

#include "algorithms/collective.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <stdexcept>
#include <utility>

namespace cb {
namespace {

template <class E, std::size_t N>
E parse_named(std::string_view what, std::string_view name,
              const std::array<std::pair<std::string_view, E>, N>& table,
              std::span<const E> canonical) {
  for (const auto& [alias, value] : table)
    if (alias == name) return value;
  std::string valid;
  for (E e : canonical) {
    if (!valid.empty()) valid += ", ";
    valid += to_string(e);
  }
  throw UsageError(fmt::format("unknown {} '{}' (valid: {})", what, name, valid));
}

// types.hpp's enum lists the rows of collective_table.inc in its order.
constexpr Collective kTableOrder[] = {
#define CB_COLLECTIVE(name, ...) Collective::name,
#include "algorithms/collective_table.inc"
#undef CB_COLLECTIVE
};
static_assert(std::ranges::equal(kTableOrder, kAllCollectives),
              "types.hpp's Collective and kAllCollectives must list collective_table.inc's rows");

}  // namespace

std::string_view to_string(Collective c) { return collective_spec(c).name; }

std::string_view to_string(DataType t) {
  switch (t) {
    case DataType::int8: return "int8";
    case DataType::uint8: return "uint8";
    case DataType::int32: return "int32";
    case DataType::uint32: return "uint32";
    case DataType::int64: return "int64";
    case DataType::uint64: return "uint64";
    case DataType::fp16: return "fp16";
    case DataType::bf16: return "bf16";
    case DataType::fp32: return "fp32";
    case DataType::fp64: return "fp64";
    case DataType::int16: return "int16";
    case DataType::uint16: return "uint16";
  }
  throw std::logic_error("bad DataType");
}

std::string_view to_string(ReduceOp o) {
  switch (o) {
    case ReduceOp::sum: return "sum";
    case ReduceOp::prod: return "prod";
    case ReduceOp::min: return "min";
    case ReduceOp::max: return "max";
    case ReduceOp::avg: return "avg";
    case ReduceOp::land: return "land";
    case ReduceOp::lor: return "lor";
    case ReduceOp::lxor: return "lxor";
    case ReduceOp::band: return "band";
    case ReduceOp::bor: return "bor";
    case ReduceOp::bxor: return "bxor";
  }
  throw std::logic_error("bad ReduceOp");
}

Collective parse_collective(std::string_view name) {
  // Each row's name, then its alias.
  static constexpr std::array<std::pair<std::string_view, Collective>, 2 * std::size(kAllCollectives)>
      table{{
#define CB_COLLECTIVE(name, alias, ...) {#name, Collective::name}, {#alias, Collective::name},
#include "algorithms/collective_table.inc"
#undef CB_COLLECTIVE
      }};
  return parse_named<Collective>("collective", name, table, kAllCollectives);
}

DataType parse_datatype(std::string_view name) {
  static constexpr std::array<std::pair<std::string_view, DataType>, 22> table{{
      {"int8", DataType::int8},     {"char", DataType::int8},
      {"uint8", DataType::uint8},   {"int32", DataType::int32},
      {"int", DataType::int32},     {"uint32", DataType::uint32},
      {"int64", DataType::int64},   {"uint64", DataType::uint64},
      {"fp16", DataType::fp16},     {"half", DataType::fp16},
      {"float16", DataType::fp16},  {"bf16", DataType::bf16},
      {"bfloat16", DataType::bf16}, {"fp32", DataType::fp32},
      {"float", DataType::fp32},    {"float32", DataType::fp32},
      {"fp64", DataType::fp64},     {"double", DataType::fp64},
      {"float64", DataType::fp64},  {"int16", DataType::int16},
      {"short", DataType::int16},   {"uint16", DataType::uint16},
  }};
  return parse_named<DataType>("datatype", name, table, kAllDataTypes);
}

ReduceOp parse_reduce_op(std::string_view name) {
  static constexpr std::array<std::pair<std::string_view, ReduceOp>, 11> table{{
      {"sum", ReduceOp::sum},   {"prod", ReduceOp::prod}, {"min", ReduceOp::min},
      {"max", ReduceOp::max},   {"avg", ReduceOp::avg},   {"land", ReduceOp::land},
      {"lor", ReduceOp::lor},   {"lxor", ReduceOp::lxor}, {"band", ReduceOp::band},
      {"bor", ReduceOp::bor},   {"bxor", ReduceOp::bxor},
  }};
  static constexpr ReduceOp every[] = {ReduceOp::sum,  ReduceOp::prod, ReduceOp::min,
                                       ReduceOp::max,  ReduceOp::avg,  ReduceOp::land,
                                       ReduceOp::lor,  ReduceOp::lxor, ReduceOp::band,
                                       ReduceOp::bor,  ReduceOp::bxor};
  return parse_named<ReduceOp>("op", name, table, every);
}

std::size_t element_size(DataType t) {
  switch (t) {
    case DataType::int8:
    case DataType::uint8: return 1;
    case DataType::int16:
    case DataType::uint16:
    case DataType::fp16:
    case DataType::bf16: return 2;
    case DataType::int32:
    case DataType::uint32:
    case DataType::fp32: return 4;
    case DataType::int64:
    case DataType::uint64:
    case DataType::fp64: return 8;
  }
  throw std::logic_error("bad DataType");
}

bool is_floating(DataType t) {
  return t == DataType::fp16 || t == DataType::bf16 || t == DataType::fp32 ||
         t == DataType::fp64;
}

bool op_applies(ReduceOp op, DataType t) {
  for (ReduceOp o : kIntegerOnlyOps)
    if (o == op) return !is_floating(t);
  return true;
}

void require_op_applies(ReduceOp op, DataType t) {
  if (!op_applies(op, t))
    throw UsageError(fmt::format("op {} is defined on integer datatypes only, not {}",
                                 to_string(op), to_string(t)));
}

bool is_reducing(Collective c) { return collective_spec(c).reducing; }

}  // namespace cb
