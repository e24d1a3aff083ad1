// Model parameter files: what `collbench calibrate` writes, and what
// `collbench fit --calibration`, `collbench predict --params` and the
// simulator's `--params` read.
//
// Calibration file format (CSV, RFC 4180, header row then ONE data row):
// `alpha_s` (seconds per message: intercept of the half-round-trip ping-pong
// line below its first protocol knee), `beta_s_per_B` (seconds per byte:
// slope of that line over sizes >= 64 KiB), `gamma_s_per_B`
// (seconds per reduced byte: median per-byte time of the fp32-sum
// reduce_inplace over sizes >= 64 KiB; sizes run from in to out of cache)
// -- all plain SI numbers -- then metadata:
// `transport` (the transport the ping-pong used, "mpi"), `ranks` (2: the pair
// every microbenchmark but the fan-in ran on; the fan-in's senders are in
// `fanin_k`, and it ran on fanin_k's largest + 1 ranks), `host`,
// `timestamp` (ISO 8601 UTC), `collbench_version`, `git_rev`, `mpi_version`,
// `pingpong_sizes_B` and `reduce_sizes_B` (the sizes measured, ';'-separated
// bytes), `pingpong_knees_B` (protocol knees detected in the ping-pong,
// ';'-separated, may be empty), `gamma_in_cache_s_per_B` and
// `gamma_out_of_cache_s_per_B` (the reduce cost per byte at the smallest and
// largest size, for reference), `memcpy_GBps` and `memcpy_in_cache_GBps`
// (memcpy bandwidth, both ranks copying at once, at the largest and at a
// 256 KiB size: the ceiling a single-copy transport's busbw is judged by; GB =
// 1e9 B; empty when not measured), `memory_GBps` (the copy rate with a
// footprint past the caches, both ranks at once: the memory-traffic bound's,
// models/memory_bound.hpp; empty in older files). Then the terms' columns: each term's
// parameters and the raw lists they were fitted from, in the order and
// with the meaning kTermColumns gives (terms.hpp; TermRecords holds the raw
// lists), each empty when not measured (files of older versions, and
// `incast` and `buffering` on 2 ranks). Then, for
// a calibration on two levels (2 or more nodes of K >= 2 ranks; all empty
// otherwise) `ranks_per_node` (K), `intra_alpha_s` and `intra_beta_s_per_B`
// (the intra-node ping-pong's alpha and beta, fitted as the baseline is,
// with ranks jK and jK+1 of every node j ping-ponging at once: what each
// pair gets while every node runs its intra-node phase) and
// `intra_pingpong_s` (the slowest pair's half round trips at
// pingpong_sizes_B), `intra_pairs` (how many pairs ran at once; absent from
// older files, whose intra columns are ranks 0 and 1 alone: read as 1) and
// `intra_alone_alpha_s`, `intra_alone_beta_s_per_B` and
// `intra_alone_pingpong_s` (the same with ranks 0 and 1 alone, for
// comparison: nothing prices with them; empty in older files); the baseline
// and every term are then the network's, measured between the leaders of
// two nodes (ranks 0 and K).
// Readers need
// only the three SI columns and must ignore columns they do not know
// (columns are only ever added).
//
// load_model_params() also accepts a `collbench fit` fit.csv: it takes the
// row with scope = global (of the requested transport, when several).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/model_params.hpp"
#include "models/terms.hpp"

namespace cb::models {

// The terms' raw lists are TermRecords' (terms.hpp: kTermColumns, the
// terms' columns of the file).
struct Calibration : TermRecords {
  ModelParams params;
  std::string transport = "mpi";
  int ranks = 2;
  std::string host, timestamp, collbench_version, git_rev, mpi_version;
  std::vector<double> pingpong_sizes_B, reduce_sizes_B, pingpong_knees_B;
  double gamma_in_cache_s_per_B = 0, gamma_out_of_cache_s_per_B = 0;
  double memcpy_GBps = 0, memcpy_in_cache_GBps = 0;  // 0 = not measured
  double memory_GBps = 0;                             // 0 = not measured
  ModelTerms terms;
  // Two levels (calibrate on 2 or more nodes of K >= 2 ranks): K, and the
  // intra-node ping-pong's alpha (s), beta (s/B) and half round trips (s) at
  // pingpong_sizes_B with intra_pairs nodes' pairs at once; everything above
  // is then the network's (two nodes' leaders). 0 and empty: one level.
  int ranks_per_node = 0;
  double intra_alpha_s = 0, intra_beta_s_per_B = 0;
  std::vector<double> intra_pingpong_s;
  int intra_pairs = 0;  // two levels: pairs measured at once (older files: 1, ranks 0 and 1)
  // The same ping-pong with ranks 0 and 1 alone (0 and empty: not measured).
  double intra_alone_alpha_s = 0, intra_alone_beta_s_per_B = 0;
  std::vector<double> intra_alone_pingpong_s;
};

// What calibrate measures for the richer terms, in seconds net of an empty
// run's time `run_s` (the order is that of aggregate initialisation).
struct TermMeasurements {
  std::vector<double> pingpong_s;  // ping-pong half round trips at c.pingpong_sizes_B
  std::vector<double> exchange_B, exchange_s;  // exchange step times per size
  // Copy and reduce times per copied/reduced size (every rank at once; the
  // working set is twice that: source and destination).
  std::vector<double> copy_B, copy_s, reduce_B, reduce_s;
  std::vector<double> multi_k, multi_s;  // k-message half round trips
  std::vector<double> ops_k, ops_s;      // k-local-copy step times
  double run_s = 0;
  // Optional (empty: the term is not fitted): the reducing exchange's step
  // times at exchange_B (reducing-exchange ranges), the relay ping-pong's
  // half round trips at c.pingpong_sizes_B (term `forward`) and the staged
  // reducing exchange's step times at exchange_B (term `staged`).
  std::vector<double> exchange_reduce_s = {}, relay_s = {}, exchange_staged_s = {};
};

// The richer terms from their microbenchmarks: fills c.terms and the raw
// lists (c.pingpong_sizes_B must be set).
void fit_terms(Calibration& c, const TermMeasurements& m);

// `flight` from the pipelined ping-pong's time (seconds, net of the empty run),
// after fit_terms (it needs pingpong_s): it takes 2 alpha + the sender's
// time per message, so F = alpha - (pipelined - 2 alpha), alpha the 8-byte
// half round trip, kept within [0, alpha] (noise can leave it outside).
void fit_flight(Calibration& c, double pipelined_s);

// `incast` from the fan-in step times `fanin_s` and the k-way exchange's
// `exchange_s` (seconds, net of the empty run; k-major over `k` and
// `sizes_B`), after fit_terms (it needs pingpong_s at those sizes): for
// each, at each k, the median over sizes m of
//   (T(k, m) - (pingpong(m) + (k - 1) * m * beta(m))) / (k * m),
// the time beyond one ping-pong plus the other k - 1 messages' bytes at
// the ping-pong's beta for m (term `range`'s range), per received byte, never
// below 0. Sizes the ping-pong did not measure are skipped; no k or no
// usable size leaves the term absent.
void fit_incast(Calibration& c, const std::vector<double>& k, const std::vector<double>& sizes_B,
                const std::vector<double>& fanin_s, const std::vector<double>& exchange_s);

// `buffering` from the fan-out's times `fanout_s` (seconds, net of the empty run) at
// `sizes_B`, after fit_terms (it needs pingpong_s at those sizes): rank 0
// sends m bytes to rank 1, then m to rank 2 while rank 1 sends its m back to
// rank 0. A send that completes when its bytes have crossed makes that
// 2 pingpong(m); one the transport buffered whole lets the second message
// share rank 0's link with the first, which then arrives a transfer later:
// 2 pingpong(m) + m * beta(m). So, per m, the fraction buffered is
//   (T(m) - 2 pingpong(m)) / (m * beta(m)),   kept within [0, 1],
// beta(m) the ping-pong's for m (term `range`'s range). Sizes the ping-pong did
// not measure are skipped; none left leaves the term absent.
void fit_buffering(Calibration& c, const std::vector<double>& sizes_B,
                   const std::vector<double>& fanout_s);

// The model parameters from calibration measurements (fills params,
// pingpong_knees_B, the size lists and the gamma references):
//  - ping-pong: half round-trip times t(n) at sizes n (bytes, ascending);
//    protocol knees are detected (knees.hpp) and reported. alpha = intercept
//    of the robust relative line through the sizes below the first knee (the
//    eager protocol; below kBulkMinBytes when there is no knee); beta = slope
//    of the robust relative line through the sizes >= kBulkMinBytes, where
//    bandwidth dominates (a minority of sizes past a later knee is discounted
//    by the robust loss, and shows up as that knee).
//  - reduce: times of reduce_inplace over `reduce_bytes` bytes (ascending);
//    gamma = the median per-byte time over sizes >= kBulkMinBytes (all sizes
//    if none is that large).
inline constexpr double kBulkMinBytes = 64 * 1024;
Calibration fit_calibration(const std::vector<double>& pingpong_bytes,
                            const std::vector<double>& half_rtt_s,
                            const std::vector<double>& reduce_bytes,
                            const std::vector<double>& reduce_s);

// The file's text (header + one row).
std::string format_calibration(const Calibration& c);

// Reads a calibration file or a fit.csv; a calibration on two levels also
// gives its intra-node alpha and beta (ModelParams::intra_*). `transport` selects the global row
// of a fit.csv holding several; the calibration's transport is returned in
// `source_transport` when asked. Throws UsageError naming the file and the
// problem (missing column, not a number, negative value, ambiguous fit.csv).
ModelParams load_model_params(const std::string& path,
                              const std::optional<std::string>& transport = std::nullopt,
                              std::string* source_transport = nullptr);

// The whole calibration record (calibration files only).
Calibration read_calibration(const std::string& path);

// The intra-node alpha and beta (gamma: the file's) of a calibration on two
// levels, for the simulator's two-level network; nullopt for a fit.csv or a
// calibration on one level.
std::optional<ModelParams> load_intra_params(const std::string& path);

// The richer terms of a calibration file; empty terms (the baseline) for a
// fit.csv or a file without them.
ModelTerms load_model_terms(const std::string& path);

// The terms `text` names (names or old letters: parse_term_set, terms.hpp),
// for the commands that price schedules with them (predict, map, run
// --transport sim, the PMPI library: one reader, so they agree). Throws
// UsageError naming the value and what is accepted. `setting` names where
// `text` came from in the message ("--terms TEXT" when empty; the PMPI
// library passes "COLLBENCH_TERMS=TEXT").
TermSet parse_term_set(std::string_view text, std::string_view setting);

// The calibration's terms from `path` when it measured every term of `use`;
// otherwise throws UsageError naming the term the file lacks (a fit.csv
// holds none), `setting` as above.
ModelTerms load_model_terms(const std::string& path, TermSet use,
                            std::string_view setting = {});

}  // namespace cb::models
