// MPICH's control variables in effect for a library-baseline row: the
// MPIR_CVAR_* settings of the environment (e.g. MPIR_CVAR_ALLREDUCE_INTRA_
// ALGORITHM=smp), so that a row of `--algo mpi` says which of MPICH's
// selections ran, not only that "MPICH" did (harness/report/CSV.md,
// library_setting). MPICH reads them from every rank's environment, and the
// launcher gives every rank the same one, so rank 0's reading is the job's.
#pragma once

#include <string>

namespace cb {

// The entries of `env` (a null-terminated NAME=VALUE array, as environ) whose
// name starts with MPIR_CVAR_, sorted by name and joined with ';'; "" when
// there is none (MPICH's defaults ran).
std::string mpich_control_variables(const char* const* env);

}  // namespace cb
