#include "transports/mpi/datatypes.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <utility>
#include <vector>

#include "transports/kernels/reduce.hpp"
#include "transports/mpi/wait.hpp"

namespace cb {
namespace {

// MPI_Finalize deletes MPI_COMM_SELF's attributes before anything else
// (MPI 4.0 section 11.2.4), so an attribute whose delete callback frees the
// handles collbench created runs in every program that calls MPI_Finalize,
// the tests' main()s included. Without it MPICH reports "yaksa: N leaked
// handle pool objects" and LeakSanitizer reports the types' memory.
int free_created_handles(MPI_Comm, int, void* handles, void*);

struct CreatedHandles {
  std::vector<MPI_Datatype> types;
  std::vector<MPI_Op> ops;
};

CreatedHandles& created() {
  static CreatedHandles handles;
  static const bool registered = [] {
    int key = MPI_KEYVAL_INVALID;
    check_mpi(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_created_handles, &key, nullptr),
              "MPI_Comm_create_keyval");
    check_mpi(MPI_Comm_set_attr(MPI_COMM_SELF, key, &handles), "MPI_Comm_set_attr");
    // The attribute keeps the key alive until it is deleted.
    check_mpi(MPI_Comm_free_keyval(&key), "MPI_Comm_free_keyval");
    return true;
  }();
  (void)registered;
  return handles;
}

int free_created_handles(MPI_Comm, int, void* handles, void*) {
  auto* h = static_cast<CreatedHandles*>(handles);
  for (MPI_Datatype& t : h->types) MPI_Type_free(&t);
  for (MPI_Op& o : h->ops) MPI_Op_free(&o);
  h->types.clear();
  h->ops.clear();
  return MPI_SUCCESS;
}

// Distinct handles per half format, so an MPI_Op function could tell them
// apart; ours are also specialised per format at compile time.
MPI_Datatype half_type(DataType dtype) {
  static const std::array<MPI_Datatype, 2> types = [] {
    std::array<MPI_Datatype, 2> t{};
    for (MPI_Datatype& each : t) {
      check_mpi(MPI_Type_contiguous(1, MPI_UINT16_T, &each), "MPI_Type_contiguous");
      check_mpi(MPI_Type_commit(&each), "MPI_Type_commit");
      created().types.push_back(each);
    }
    return t;
  }();
  return types[dtype == DataType::fp16 ? 0 : 1];
}

// MPI's user function computes inoutvec = invec (op) inoutvec.
template <DataType D, ReduceOp O>
void half_reduce(void* invec, void* inoutvec, int* len, MPI_Datatype*) {
  reduce_inplace(D, O, inoutvec, invec, static_cast<std::size_t>(*len));
}

template <DataType D>
MPI_Op half_op(ReduceOp op) {
  static const std::array<MPI_Op, 4> ops = [] {
    std::array<MPI_Op, 4> o{};
    check_mpi(MPI_Op_create(half_reduce<D, ReduceOp::sum>, 1, &o[0]), "MPI_Op_create");
    check_mpi(MPI_Op_create(half_reduce<D, ReduceOp::prod>, 1, &o[1]), "MPI_Op_create");
    check_mpi(MPI_Op_create(half_reduce<D, ReduceOp::min>, 1, &o[2]), "MPI_Op_create");
    check_mpi(MPI_Op_create(half_reduce<D, ReduceOp::max>, 1, &o[3]), "MPI_Op_create");
    created().ops.insert(created().ops.end(), o.begin(), o.end());
    return o;
  }();
  switch (op) {
    case ReduceOp::sum:
    case ReduceOp::avg:
      return ops[0];
    case ReduceOp::prod:
      return ops[1];
    case ReduceOp::min:
      return ops[2];
    case ReduceOp::max:
      return ops[3];
    default:  // logical and bitwise ops are not defined on floats (op_applies)
      break;
  }
  return MPI_OP_NULL;
}

}  // namespace

MPI_Datatype mpi_datatype(DataType dtype) {
  switch (dtype) {
    case DataType::int8:
      return MPI_INT8_T;
    case DataType::uint8:
      return MPI_UINT8_T;
    case DataType::int32:
      return MPI_INT32_T;
    case DataType::uint32:
      return MPI_UINT32_T;
    case DataType::int64:
      return MPI_INT64_T;
    case DataType::uint64:
      return MPI_UINT64_T;
    case DataType::int16:
      return MPI_INT16_T;
    case DataType::uint16:
      return MPI_UINT16_T;
    case DataType::fp16:
    case DataType::bf16:
      return half_type(dtype);
    case DataType::fp32:
      return MPI_FLOAT;
    case DataType::fp64:
      return MPI_DOUBLE;
  }
  return MPI_DATATYPE_NULL;
}

MPI_Op mpi_op(DataType dtype, ReduceOp op) {
  if (dtype == DataType::fp16) return half_op<DataType::fp16>(op);
  if (dtype == DataType::bf16) return half_op<DataType::bf16>(op);
  switch (op) {
    case ReduceOp::sum:
    case ReduceOp::avg:
      return MPI_SUM;
    case ReduceOp::prod:
      return MPI_PROD;
    case ReduceOp::min:
      return MPI_MIN;
    case ReduceOp::max:
      return MPI_MAX;
    case ReduceOp::land:
      return MPI_LAND;
    case ReduceOp::lor:
      return MPI_LOR;
    case ReduceOp::lxor:
      return MPI_LXOR;
    case ReduceOp::band:
      return MPI_BAND;
    case ReduceOp::bor:
      return MPI_BOR;
    case ReduceOp::bxor:
      return MPI_BXOR;
  }
  return MPI_OP_NULL;
}

}  // namespace cb

namespace cb {
namespace {

template <class T>
bool unsigned_min_max_right(DataType dtype, ReduceOp op) {
  constexpr T top = std::numeric_limits<T>::max();
  const std::array<T, 2> in{0, top};
  std::array<T, 2> inout{top, 0};
  check_mpi(MPI_Reduce_local(in.data(), inout.data(), 2, mpi_datatype(dtype), mpi_op(dtype, op)),
            "MPI_Reduce_local");
  const T want = op == ReduceOp::min ? T{0} : top;
  return inout[0] == want && inout[1] == want;
}

}  // namespace

std::string mpi_known_defect(DataType dtype, ReduceOp op) {
  if (op != ReduceOp::min && op != ReduceOp::max) return "";
  static std::map<std::pair<DataType, ReduceOp>, bool> right;
  const auto key = std::make_pair(dtype, op);
  auto it = right.find(key);
  if (it == right.end()) {
    bool ok = true;
    switch (dtype) {
      case DataType::uint8:
        ok = unsigned_min_max_right<std::uint8_t>(dtype, op);
        break;
      case DataType::uint16:
        ok = unsigned_min_max_right<std::uint16_t>(dtype, op);
        break;
      case DataType::uint32:
        ok = unsigned_min_max_right<std::uint32_t>(dtype, op);
        break;
      case DataType::uint64:
        ok = unsigned_min_max_right<std::uint64_t>(dtype, op);
        break;
      default:
        break;
    }
    it = right.emplace(key, ok).first;
  }
  return it->second ? "" : "pmodels/mpich#6083 (unsigned MPI_MIN/MPI_MAX compared as signed)";
}

}  // namespace cb
