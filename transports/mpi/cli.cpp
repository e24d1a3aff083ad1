// --transport mpi: schedules over MPI point-to-point, and the `mpi` library
// baseline (MPICH's own collectives). Compiled when MPICH is found.
#include <unistd.h>  // environ

#include <memory>
#include <string>

#include "transports/contract/transport_spec.hpp"
#include "transports/contract/group.hpp"
#include "transports/contract/mpi_comm.hpp"
#include "transports/mpi/control_variables.hpp"
#include "transports/mpi/datatypes.hpp"
#include "transports/mpi/library_operation.hpp"
#include "transports/mpi/schedule_operation.hpp"

namespace cb {

void add_mpi_transport(std::vector<TransportSpec>& list) {
  TransportSpec t;
  t.name = "mpi";
  t.summary = "schedules over MPI point-to-point (MPICH); baseline 'mpi' = MPICH's collectives";
  t.per_process = true;
  t.baselines = {"mpi"};
  t.make_operation = [](const Case& c, const Schedule* schedule,
                        Group& group) -> std::unique_ptr<Operation> {
    MPI_Comm comm = mpi_comm_of(group);
    if (schedule)
      return std::make_unique<MpiScheduleOperation>(*schedule, comm, group.wait_policy());
    return std::make_unique<MpiLibraryOperation>(c.coll, c.dtype, c.op, c.in_place, c.count, comm,
                                                 group.wait_policy());
  };
  t.known_issue = [](const Case& c) -> std::string {
    // With one rank MPI applies no reduction at all.
    if (c.algorithm != "mpi" || !is_reducing(c.coll) || c.ranks < 2) return "";
    return mpi_known_defect(c.dtype, c.op);
  };
  t.library_setting = [](const Case& c) -> std::string {
    return c.algorithm == "mpi" ? mpich_control_variables(environ) : "";
  };
  list.push_back(std::move(t));
}

}  // namespace cb
