// The MPI library's function for each collective, from the row of
// algorithms/collective_table.inc (its Mpi and Impi columns). How to call it
// (reducing or not, counts) is the collective's spec
// (algorithms/collective.hpp), read by call_collective. Header-only so the
// pmpi tests, which call the library through PMPI_ beside the interposed
// MPI_ entry points, share it without linking the transport.
#pragma once

#include <mpi.h>

#include <span>

#include "algorithms/check.hpp"
#include "algorithms/collective.hpp"

namespace cb {

struct MpiCalls {
  using Reduce = int (*)(const void*, void*, int, MPI_Datatype, MPI_Op, MPI_Comm);
  using Ireduce = int (*)(const void*, void*, int, MPI_Datatype, MPI_Op, MPI_Comm, MPI_Request*);
  using Move = int (*)(const void*, int, MPI_Datatype, void*, int, MPI_Datatype, MPI_Comm);
  using Imove = int (*)(const void*, int, MPI_Datatype, void*, int, MPI_Datatype, MPI_Comm,
                        MPI_Request*);
  Collective coll;
  // A reducing collective fills reduce/ireduce, the others move/imove.
  Reduce reduce = nullptr;
  Ireduce ireduce = nullptr;
  Move move = nullptr;
  Imove imove = nullptr;
};

// The entry of a table row; the functions' type says which pair it fills.
inline MpiCalls mpi_calls_of(Collective coll, MpiCalls::Reduce f, MpiCalls::Ireduce i) {
  return {coll, f, i, nullptr, nullptr};
}
inline MpiCalls mpi_calls_of(Collective coll, MpiCalls::Move f, MpiCalls::Imove i) {
  return {coll, nullptr, nullptr, f, i};
}

// use_pmpi: the PMPI_ names, which reach the MPI library under the
// libcollbench-pmpi interposer.
inline const MpiCalls& mpi_calls(Collective coll, bool use_pmpi = false) {
  static const MpiCalls kMpi[] = {
#define CB_COLLECTIVE(name, alias, mpi, impi, ...) \
  mpi_calls_of(Collective::name, MPI_##mpi, MPI_##impi),
#include "algorithms/collective_table.inc"
#undef CB_COLLECTIVE
  };
  static const MpiCalls kPmpi[] = {
#define CB_COLLECTIVE(name, alias, mpi, impi, ...) \
  mpi_calls_of(Collective::name, PMPI_##mpi, PMPI_##impi),
#include "algorithms/collective_table.inc"
#undef CB_COLLECTIVE
  };
  for (const MpiCalls& c : use_pmpi ? std::span<const MpiCalls>(kPmpi) : std::span<const MpiCalls>(kMpi))
    if (c.coll == coll) return c;
  CB_CHECK(false, "no MPI call for collective {}", static_cast<int>(coll));
}

// Calls `coll` in its spec's shape: count elements per rank on both sides,
// op ignored unless reducing. The nonblocking form when request != nullptr.
inline int call_collective(Collective coll, bool use_pmpi, const void* send, void* recv,
                           int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                           MPI_Request* request = nullptr) {
  const MpiCalls& f = mpi_calls(coll, use_pmpi);
  if (collective_spec(coll).reducing)
    return request ? f.ireduce(send, recv, count, type, op, comm, request)
                   : f.reduce(send, recv, count, type, op, comm);
  return request ? f.imove(send, count, type, recv, count, type, comm, request)
                 : f.move(send, count, type, recv, count, type, comm);
}

}  // namespace cb
