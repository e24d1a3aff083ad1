// Forcing one of MPICH 4.0.2's own MPI_Allreduce algorithms between calls,
// inside one launch, through the MPI tools interface (MPI_T control
// variables): MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM and, for `nb`,
// MPIR_CVAR_IALLREDUCE_INTRA_ALGORITHM. MPICH reads both at every call, so
// the benchmarks here can interleave MPICH's algorithms with collbench's
// and compare them under the same machine state, which separate launches
// (one environment each) cannot on a shared machine.
//
// MPI_T gives these variables as plain integers (MPICH exposes no
// enumeration for them), so the values below are MPICH 4.0.2's enumeration
// order (mpir_cvars.h), checked against the library version at start.
// The launch must also set MPIR_CVAR_DEVICE_COLLECTIVES=none (else ch4
// picks its own shared-memory algorithm) and MPIR_CVAR_COLLECTIVE_FALLBACK=
// error (else an inapplicable choice silently runs another algorithm).
#pragma once

#include <mpi.h>

#include <array>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

struct MpichAllreduceAlgorithm {
  const char* name;  // as in harness/USAGE.md: the CVAR's value, or nb's tsp_* form
  int allreduce;     // MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM
  int iallreduce;    // MPIR_CVAR_IALLREDUCE_INTRA_ALGORITHM (0 = auto)
};

// MPICH 4.0.2: allreduce auto=0 nb=1 smp=2 recursive_doubling=3
// reduce_scatter_allgather=4; iallreduce auto=0 ... tsp_tree=8 tsp_ring=9.
inline constexpr std::array<MpichAllreduceAlgorithm, 5> kMpichAllreduce{{
    {"auto", 0, 0},
    {"recursive_doubling", 3, 0},
    {"reduce_scatter_allgather", 4, 0},
    {"tsp_ring", 1, 9},
    {"tsp_tree", 1, 8},
}};

inline std::optional<MpichAllreduceAlgorithm> mpich_allreduce_algorithm(std::string_view name) {
  for (const MpichAllreduceAlgorithm& a : kMpichAllreduce)
    if (name == a.name) return a;
  return std::nullopt;
}

// The names kMpichAllreduce accepts, for a refusal message.
inline std::string mpich_allreduce_names() {
  std::string out;
  for (const MpichAllreduceAlgorithm& a : kMpichAllreduce)
    out += (out.empty() ? "" : ", ") + std::string(a.name);
  return out;
}

// Holds the two control variables' handles (MPI_T initialised after
// MPI_Init, finalised on destruction, before MPI_Finalize).
class MpichAlgorithmSwitch {
 public:
  // Empty `error()` when forcing works here; otherwise why not (wrong
  // library version, a missing environment variable, no such variable).
  MpichAlgorithmSwitch() {
    char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
    int len = 0;
    MPI_Get_library_version(version, &len);
    if (std::strncmp(version, "MPICH Version:\t4.0.2\n", 21) != 0) {
      error_ = "forcing MPICH's algorithms needs MPICH 4.0.2 (its MPI_T values are hard-coded)";
      return;
    }
    for (const char* var : {"MPIR_CVAR_DEVICE_COLLECTIVES", "MPIR_CVAR_COLLECTIVE_FALLBACK"}) {
      const char* v = std::getenv(var);
      const char* want = std::strcmp(var, "MPIR_CVAR_DEVICE_COLLECTIVES") == 0 ? "none" : "error";
      if (!v || std::strcmp(v, want) != 0) {
        error_ = std::string("forcing MPICH's algorithms needs ") + var + "=" + want +
                 " in the environment (harness/USAGE.md, the mpi baseline)";
        return;
      }
    }
    int provided = 0;
    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) {
      error_ = "MPI_T_init_thread failed";
      return;
    }
    started_ = true;
    allreduce_ = handle_of("MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM");
    iallreduce_ = handle_of("MPIR_CVAR_IALLREDUCE_INTRA_ALGORITHM");
    if (allreduce_ == MPI_T_CVAR_HANDLE_NULL || iallreduce_ == MPI_T_CVAR_HANDLE_NULL)
      error_ = "this MPICH has no MPIR_CVAR_(I)ALLREDUCE_INTRA_ALGORITHM control variable";
  }
  ~MpichAlgorithmSwitch() {
    if (allreduce_ != MPI_T_CVAR_HANDLE_NULL) MPI_T_cvar_handle_free(&allreduce_);
    if (iallreduce_ != MPI_T_CVAR_HANDLE_NULL) MPI_T_cvar_handle_free(&iallreduce_);
    if (started_) MPI_T_finalize();
  }
  MpichAlgorithmSwitch(const MpichAlgorithmSwitch&) = delete;
  MpichAlgorithmSwitch& operator=(const MpichAlgorithmSwitch&) = delete;

  const std::string& error() const { return error_; }

  // Every rank must force the same algorithm before its next call (the
  // variables' scope is "all ranks equal"). False when a write failed.
  bool force(const MpichAllreduceAlgorithm& a) {
    int allreduce = a.allreduce, iallreduce = a.iallreduce;
    return error_.empty() && MPI_T_cvar_write(allreduce_, &allreduce) == MPI_SUCCESS &&
           MPI_T_cvar_write(iallreduce_, &iallreduce) == MPI_SUCCESS;
  }

 private:
  static MPI_T_cvar_handle handle_of(const char* wanted) {
    int n = 0;
    MPI_T_cvar_get_num(&n);
    for (int i = 0; i < n; ++i) {
      char name[256];
      int name_len = sizeof name, verbosity = 0, bind = 0, scope = 0, desc_len = 0;
      MPI_Datatype type;
      MPI_T_enum enumtype;
      if (MPI_T_cvar_get_info(i, name, &name_len, &verbosity, &type, &enumtype, nullptr,
                              &desc_len, &bind, &scope) != MPI_SUCCESS ||
          std::strcmp(name, wanted) != 0 || type != MPI_INT)
        continue;
      MPI_T_cvar_handle h = MPI_T_CVAR_HANDLE_NULL;
      int count = 0;
      if (MPI_T_cvar_handle_alloc(i, nullptr, &h, &count) == MPI_SUCCESS && count == 1) return h;
      if (h != MPI_T_CVAR_HANDLE_NULL) MPI_T_cvar_handle_free(&h);
    }
    return MPI_T_CVAR_HANDLE_NULL;
  }

  std::string error_;
  bool started_ = false;
  MPI_T_cvar_handle allreduce_ = MPI_T_CVAR_HANDLE_NULL;
  MPI_T_cvar_handle iallreduce_ = MPI_T_CVAR_HANDLE_NULL;
};
