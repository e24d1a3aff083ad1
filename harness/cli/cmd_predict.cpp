// `collbench predict --coll allreduce --ranks 1024 -b 8 -e 1G [-f 2]
// (--alpha A --beta B --gamma G | --params FILE)`: every algorithm's predicted
// time per size at any scale, the best one and the collective's lower bound,
// from the closed-form costs (models/predict.hpp). No ranks are started.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "algorithms/registry.hpp"
#include "harness/cli/commands.hpp"
#include "harness/cli/size_flags.hpp"
#include "harness/sweep/sizes.hpp"
#include "models/calibration.hpp"
#include "models/fit_run.hpp"
#include "models/predict.hpp"
#include "models/schedule_model.hpp"
#include "transports/sim/net_params.hpp"

namespace cb {
namespace {

struct PredictOptions {
  std::string coll;
  int ranks = 0;
  SizeFlags sizes{"8", "1G", "2", "0"};
  std::string dtype = "float";
  std::string op = "sum";
  bool in_place = false;
  // Parsed like the simulator's flags: plain SI or with a unit (2us, 0.1ns/B).
  std::optional<std::string> alpha, beta, gamma;
  std::string params_file;
  std::string transport;
  std::string terms;  // subset of "abcd" (models/terms.hpp); "" = alpha-beta-gamma
  std::string csv;
};

// Schedule-priced predictions build every rank's schedule.
constexpr int kMaxTermsRanks = 1024;

models::ModelParams resolve_params(const PredictOptions& o) {
  models::ModelParams m;
  if (!o.params_file.empty()) {
    m = models::load_model_params(
        o.params_file, o.transport.empty() ? std::nullopt : std::optional<std::string>(o.transport));
  } else if (!o.alpha || !o.beta || !o.gamma) {
    throw UsageError(
        "predict needs the model: --params FILE (from calibrate or fit) or all of --alpha, "
        "--beta and --gamma (seconds, seconds per byte, seconds per reduced byte)");
  }
  const auto set = [](const std::optional<std::string>& text, const char* flag, double& out,
                      double (*parse)(std::string_view, std::string_view)) {
    if (!text) return;
    const double v = parse(*text, flag);
    if (!std::isfinite(v) || v < 0)
      throw UsageError(fmt::format("{} {} is not a number >= 0", flag, *text));
    out = v;
  };
  set(o.alpha, "--alpha", m.alpha_s, sim::parse_seconds);
  set(o.beta, "--beta", m.beta_s_per_B, sim::parse_seconds_per_byte);
  set(o.gamma, "--gamma", m.gamma_s_per_B, sim::parse_seconds_per_byte);
  return m;
}

void predict(const PredictOptions& o) {
  models::Scenario s;
  s.coll = parse_collective(o.coll);
  s.dtype = parse_datatype(o.dtype);
  s.op = parse_reduce_op(o.op);
  s.in_place = o.in_place;
  if (o.ranks < 1) throw UsageError(fmt::format("--ranks {} is not >= 1", o.ranks));
  s.p = o.ranks;
  const models::ModelParams m = resolve_params(o);
  std::vector<std::uint64_t> sizes;
  for (std::size_t b : requested_sizes(o.sizes)) sizes.push_back(b);
  const auto algos = algorithms_for(s.coll);
  if (algos.empty()) throw UsageError(fmt::format("no algorithm is registered for {}", o.coll));
  auto rows = models::predict_table(s, sizes, m);
  if (!o.terms.empty()) {
    for (char t : o.terms)
      if (std::string_view("abcd").find(t) == std::string_view::npos)
        throw UsageError(fmt::format("--terms {}: '{}' is not a term (accepted: letters of abcd, "
                                     "see models/README.md)",
                                     o.terms, t));
    if (o.params_file.empty())
      throw UsageError("--terms needs --params FILE: a calibration file that measured them");
    if (s.p > kMaxTermsRanks)
      throw UsageError(fmt::format("--terms prices every rank's schedule: --ranks {} is above {} "
                                   "(use the alpha-beta-gamma closed forms without --terms)",
                                   s.p, kMaxTermsRanks));
    const models::ModelTerms terms = models::load_model_terms(o.params_file);
    for (char t : o.terms)
      if (!terms.has(t))
        throw UsageError(fmt::format("--terms {}: {} does not hold term ({}) (recalibrate with "
                                     "this collbench)",
                                     o.terms, o.params_file, t));
    for (models::PredictedRow& r : rows) {
      for (std::size_t i = 0; i < algos.size(); ++i)
        r.seconds[i] =
            models::priced_seconds(models::features_for(algos[i], s, r.count), m, terms, o.terms);
      r.best = static_cast<std::size_t>(
          std::min_element(r.seconds.begin(), r.seconds.end()) - r.seconds.begin());
    }
  }

  fmt::print("# predicted {} at p = {}, {}{}{}; alpha {:.4g} s, beta {:.4g} s/B ({:.3g} GB/s), "
             "gamma {:.4g} s/B ({:.3g} GB/s)\n",
             to_string(s.coll), s.p, to_string(s.dtype),
             is_reducing(s.coll) ? fmt::format(" {}", to_string(s.op)) : std::string(),
             s.in_place ? ", in place" : "", m.alpha_s, m.beta_s_per_B,
             m.beta_s_per_B > 0 ? 1e-9 / m.beta_s_per_B : INFINITY, m.gamma_s_per_B,
             m.gamma_s_per_B > 0 ? 1e-9 / m.gamma_s_per_B : INFINITY);
  fmt::print("# model: {}\n", o.terms.empty() ? std::string("alpha-beta-gamma closed forms")
                                               : "schedule-priced with terms " + o.terms);
  fmt::print("# times in us (6 significant digits); size = S as in nccl-tests (bytes); bound = "
             "the collective's lower bound (alpha-beta-gamma); best/bound = how far the best "
             "algorithm is from it\n");
  std::size_t width = 10;
  for (const AlgorithmEntry& a : algos) width = std::max(width, a.name.size() + 1);
  fmt::print("{:>12} {:>12}", "size(B)", "count");
  for (const AlgorithmEntry& a : algos) fmt::print(" {:>{}}", a.name, width);
  fmt::print(" {:>{}} {:>12} {:>10}\n", "best", width, "bound", "best/bound");
  for (const models::PredictedRow& r : rows) {
    fmt::print("{:>12} {:>12}", r.bytes, r.count);
    for (double t : r.seconds) fmt::print(" {:>{}.6g}", t * 1e6, width);
    const double best = r.seconds[r.best];
    fmt::print(" {:>{}} {:>12.6g} {:>10.3f}\n", algos[r.best].name, width, r.lower_bound_s * 1e6,
               r.lower_bound_s > 0 ? best / r.lower_bound_s : 1.0);
  }
  if (o.csv.empty()) return;
  // One row per (size, algorithm), like the results CSV, so the simulator's
  // rows can be joined on (collective, algorithm, ranks, bytes).
  std::string text =
      "collective,algorithm,datatype,op,placement,ranks,bytes,count,predicted_us,best,"
      "lower_bound_us,model\n";
  const std::string model = o.terms.empty() ? "abg" : "terms:" + o.terms;
  for (const models::PredictedRow& r : rows)
    for (std::size_t i = 0; i < algos.size(); ++i)
      text += fmt::format("{},{},{},{},{},{},{},{},{:.6g},{},{:.6g},{}\n", to_string(s.coll),
                          algos[i].name, to_string(s.dtype),
                          is_reducing(s.coll) ? std::string(to_string(s.op)) : std::string(),
                          s.in_place ? "in" : "out", s.p, r.bytes, r.count, r.seconds[i] * 1e6,
                          i == r.best ? 1 : 0, r.lower_bound_s * 1e6, model);
  const std::filesystem::path out(o.csv);
  const std::string dir = out.has_parent_path() ? out.parent_path().string() : ".";
  models::write_files_atomically(dir, {{out.filename().string(), text}});
}

}  // namespace

void add_predict_command(CLI::App& app) {
  auto o = std::make_shared<PredictOptions>();
  CLI::App* cmd = app.add_subcommand(
      "predict",
      "Print every algorithm's predicted time per size at any rank count, the best one and "
      "the lower bound, from alpha, beta, gamma");
  cmd->add_option("--coll", o->coll, "collective: allreduce, reduce_scatter, allgather, alltoall")
      ->required();
  cmd->add_option("--ranks", o->ranks, "rank count p (any, e.g. 16384)")->required();
  add_size_flags(*cmd, o->sizes);
  cmd->add_option("-d,--datatype", o->dtype, "datatype")->capture_default_str();
  cmd->add_option("-o,--op", o->op, "reduction op")->capture_default_str();
  cmd->add_flag("--in-place", o->in_place, "predict the in-place variant");
  cmd->add_option("--alpha", o->alpha, "seconds per message, e.g. 2e-6 or 2us");
  cmd->add_option("--beta", o->beta, "seconds per byte, e.g. 1e-10 or 0.1ns (= 10 GB/s)");
  cmd->add_option("--gamma", o->gamma, "seconds per reduced byte, e.g. 2.5e-10 or 0.25ns");
  cmd->add_option("--params", o->params_file,
                  "calibration file or fit.csv to take alpha, beta, gamma from (flags override)");
  cmd->add_option("--transport", o->transport,
                  "with a fit.csv holding several transports: whose global fit to use");
  cmd->add_option("--terms", o->terms,
                  "price the schedules with the calibrated model's terms, letters of abcd (see "
                  "models/README.md; needs --params CALIBRATION, --ranks <= 1024); default: the "
                  "alpha-beta-gamma closed forms, as the simulator uses");
  cmd->add_option("--csv", o->csv,
                  "also write the predictions as CSV (one row per size and algorithm, 6 "
                  "significant digits), atomically");
  cmd->callback([o] { predict(*o); });
}

}  // namespace cb
