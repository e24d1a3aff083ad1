// The library's settings, read once from the environment at MPI_Init.
//
//   COLLBENCH_ALGO=NAME           every collective: an algorithm name (ring,
//                                 rhd ...), `mpi` (the MPI library's own
//                                 collective), `auto` (the model's predicted
//                                 best; needs COLLBENCH_PARAMS) or `selection`
//                                 (needs COLLBENCH_SELECTION).
//   COLLBENCH_ALLREDUCE, COLLBENCH_REDUCE_SCATTER, COLLBENCH_ALLGATHER,
//   COLLBENCH_ALLTOALL=NAME       one collective, overriding COLLBENCH_ALGO.
//   COLLBENCH_PARAMS=FILE         a calibration file or fit.csv (alpha, beta,
//                                 gamma) for `auto`; COLLBENCH_PARAMS_TRANSPORT
//                                 picks fit.csv's global row (default mpi).
//   COLLBENCH_TERMS=NAMES         `auto` prices the schedules with the
//                                 calibrated terms (range,copy,...; old
//                                 letters read too: models/terms.hpp) the COLLBENCH_PARAMS
//                                 calibration file measured; unset: the
//                                 alpha-beta-gamma closed forms.
//   COLLBENCH_SELECTION=FILE      an MPICH selection JSON for `selection`.
//   COLLBENCH_REPORT=0|1          the counters table at MPI_Finalize.
//   COLLBENCH_MAX_BYTES=N[K|M|G]  calls with S above N go to the library
//                                 (default 1G).
//   COLLBENCH_WAIT=auto|spin|yield|sleep   how schedules wait (default auto:
//                                 spin unless ranks outnumber cores).
// Unset COLLBENCH_ALGO means `selection` when COLLBENCH_SELECTION is set,
// else `auto` when COLLBENCH_PARAMS is set, else `mpi`.
#pragma once

#include <nlohmann/json.hpp>

#include <array>
#include <cstddef>
#include <optional>
#include <string>

#include "algorithms/types.hpp"
#include "models/do_no_harm.hpp"
#include "models/model_params.hpp"
#include "models/terms.hpp"
#include "transports/contract/transport.hpp"

namespace cb::pmpi {

enum class Mode : std::uint8_t { mpi, named, automatic, selection };

struct Choice {
  Mode mode = Mode::mpi;
  // Mode::named: the registry slot (counters.hpp), or -1 when COLLBENCH_ALGO
  // names an algorithm this collective lacks (its calls fall back).
  int slot = -1;
  std::string name;  // as given
};

struct Config {
  std::array<Choice, std::size(kAllCollectives)> choice;  // by Collective
  std::optional<models::ModelParams> params;
  models::TermSet terms;  // the terms to price with (models/terms.hpp); empty = closed forms
  models::ModelTerms model_terms;
  std::optional<nlohmann::ordered_json> selection;
  // `auto` does no harm (models/do_no_harm.hpp): with MPICH's default tree
  // (read from libmpich at MPI_Init by interpose.cpp) the library's own
  // choice is priced too, and a schedule replaces it only where its
  // predicted gain exceeds `validated`'s error (the fit's predictions.csv
  // beside COLLBENCH_PARAMS; without it, any predicted gain counts).
  std::optional<nlohmann::ordered_json> library_tree;
  std::optional<models::ValidatedError> validated;
  // The start-up line rank 0 prints when `auto` is in use: which terms price
  // and which error guards ("" when no collective uses auto).
  std::string auto_line;
  bool report = false;
  std::size_t max_bytes = std::size_t{1} << 30;
  WaitPolicy wait = WaitPolicy::automatic;
};

// The environment variable of one collective ("COLLBENCH_ALLREDUCE" ...).
std::string env_name(Collective coll);

// Parses `value` as a choice for `coll`; `var` names the variable for the
// error. Throws UsageError (one line: the variable, the value, what is
// accepted) for unknown names, for an algorithm `coll` lacks when `var` is a
// per-collective variable, and for auto/selection without their file.
Choice parse_choice(Collective coll, const std::string& var, const std::string& value,
                    const Config& config, bool per_collective);

// Reads every variable. Throws UsageError as parse_choice does, and for a
// file that cannot be read or a number that is not one.
Config read_config();

// The slot of algorithm `name` for `coll`, or -1.
int algorithm_slot(Collective coll, std::string_view name);

// Above this many ranks `auto` ignores COLLBENCH_TERMS: pricing with terms
// generates every rank's schedule (as `collbench predict --terms` refuses).
inline constexpr int kMaxTermsRanks = 1024;

// The slot of the algorithm `config`'s model predicts fastest for the call
// shape (config.params must be set); the first of equals on a tie. With
// config.library_tree, kMpiSlot (the library's own collective) unless that
// algorithm's predicted gain over the library's own choice (MPICH's tree
// walked for the call, priced as collbench's equivalent) is beyond the
// validated error (models::gain_beyond_error); also kMpiSlot where MPICH
// picks an algorithm collbench cannot price.
int predicted_best(const Config& config, Collective coll, int p, DataType dtype, ReduceOp op,
                   bool in_place, std::size_t count);

// With `auto` and no COLLBENCH_TERMS: the best calibrated terms of the fit
// beside COLLBENCH_PARAMS (its accuracy.csv) when the file measured them,
// and the validated error of the source used (its predictions.csv); sets
// config.terms, model_terms, validated and auto_line. Called by
// read_config; throws UsageError for unreadable files.
void choose_auto_source(Config& config, const std::string& params_file, const std::string& transport,
                        bool terms_given);

}  // namespace cb::pmpi
