#include "transports/mpi/pmpi/config.hpp"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>

#include "algorithms/registry.hpp"
#include "models/calibration.hpp"
#include "models/crossover.hpp"
#include "models/csv_text.hpp"
#include "models/predict.hpp"
#include "models/schedule_model.hpp"
#include "models/targets.hpp"
#include "transports/mpi/pmpi/counters.hpp"
#include "transports/mpi/pmpi/selection.hpp"

namespace cb::pmpi {
namespace {

std::optional<std::string> env(const std::string& name) {
  const char* v = std::getenv(name.c_str());
  if (!v) return std::nullopt;
  return std::string(v);
}

std::string accepted_names(std::optional<Collective> coll) {
  std::string out = "mpi, auto, selection";
  if (coll) {
    for (const AlgorithmEntry& e : algorithms_for(*coll)) out += fmt::format(", {}", e.name);
  } else {
    for (std::string_view n : all_algorithm_names()) out += fmt::format(", {}", n);
  }
  return out;
}

std::size_t parse_bytes(const std::string& var, const std::string& text) {
  std::uint64_t n = 0;
  const char* end = text.data() + text.size();
  const auto [rest, ec] = std::from_chars(text.data(), end, n);
  std::uint64_t scale = 1;
  bool ok = ec == std::errc() && rest != text.data();
  if (ok && rest != end) {
    const std::string_view unit(rest, static_cast<std::size_t>(end - rest));
    if (unit == "K" || unit == "k") scale = 1ull << 10;
    else if (unit == "M" || unit == "m") scale = 1ull << 20;
    else if (unit == "G" || unit == "g") scale = 1ull << 30;
    else ok = false;
  }
  if (!ok || n > (~std::uint64_t{0}) / scale)
    throw UsageError(fmt::format("{}={}: not a size; accepted: a whole number of bytes, "
                                 "optionally with K, M or G (powers of 1024)",
                                 var, text));
  return static_cast<std::size_t>(n * scale);
}

}  // namespace

std::string env_name(Collective coll) {
  std::string name = "COLLBENCH_";
  for (char c : to_string(coll)) name += static_cast<char>(std::toupper(c));
  return name;
}

int algorithm_slot(Collective coll, std::string_view name) {
  const auto algos = algorithms_for(coll);
  for (std::size_t i = 0; i < algos.size(); ++i)
    if (algos[i].name == name) return static_cast<int>(i) + 1;
  return -1;
}

Choice parse_choice(Collective coll, const std::string& var, const std::string& value,
                    const Config& config, bool per_collective) {
  Choice c;
  c.name = value;
  if (value == "mpi") {
    c.mode = Mode::mpi;
    c.slot = kMpiSlot;
    return c;
  }
  if (value == "auto") {
    if (!config.params)
      throw UsageError(fmt::format("{}=auto needs COLLBENCH_PARAMS=FILE (a calibration file or "
                                   "fit.csv with alpha, beta, gamma)",
                                   var));
    c.mode = Mode::automatic;
    return c;
  }
  if (value == "selection") {
    if (!config.selection)
      throw UsageError(fmt::format(
          "{}=selection needs COLLBENCH_SELECTION=FILE (an MPICH selection JSON)", var));
    c.mode = Mode::selection;
    return c;
  }
  c.mode = Mode::named;
  c.slot = algorithm_slot(coll, value);
  if (c.slot > 0) return c;
  bool anywhere = false;
  for (std::string_view n : all_algorithm_names()) anywhere = anywhere || n == value;
  if (per_collective || !anywhere)
    throw UsageError(fmt::format("{}={}: {}; accepted: {}", var, value,
                                 anywhere ? fmt::format("no such algorithm for {}", to_string(coll))
                                          : std::string("unknown algorithm"),
                                 accepted_names(per_collective ? std::optional(coll)
                                                               : std::nullopt)));
  return c;  // slot -1: this collective's calls fall back (no_algorithm)
}

// Long on purpose: one read and check of each COLLBENCH_* variable, one after another.
Config read_config() {
  Config config;
  if (const auto path = env("COLLBENCH_PARAMS")) {
    const std::optional<std::string> chosen = env("COLLBENCH_PARAMS_TRANSPORT");
    std::string source;
    try {
      config.params = models::load_model_params(*path, chosen.value_or("mpi"), &source);
    } catch (const std::exception& e) {
      throw UsageError(fmt::format("COLLBENCH_PARAMS={}: {}", *path, e.what()));
    }
    // A calibration file holds one transport: a setting naming another was
    // ignored in silence.
    if (chosen && !source.empty() && source != *chosen)
      throw UsageError(fmt::format("COLLBENCH_PARAMS_TRANSPORT={}: {} holds transport {} only "
                                   "(accepted: {}, or unset)",
                                   *chosen, *path, source, source));
  }
  if (const auto letters = env("COLLBENCH_TERMS")) {
    const auto path = env("COLLBENCH_PARAMS");
    if (!path)
      throw UsageError(fmt::format("COLLBENCH_TERMS={} needs COLLBENCH_PARAMS=FILE (a calibration "
                                   "file from `collbench calibrate` that measured them)",
                                   *letters));
    // The same reader as `--terms` of predict, map and the simulator, so the
    // terms accepted here are always the ones the model prices.
    const std::string setting = fmt::format("COLLBENCH_TERMS={}", *letters);
    config.terms = models::parse_term_set(*letters, setting);
    try {
      config.model_terms = models::load_model_terms(*path, config.terms, setting);
    } catch (const UsageError&) {
      throw;
    } catch (const std::exception& e) {
      throw UsageError(fmt::format("COLLBENCH_PARAMS={}: {}", *path, e.what()));
    }
  }
  if (const auto path = env("COLLBENCH_SELECTION")) config.selection = read_selection(*path);
  if (const auto v = env("COLLBENCH_REPORT")) {
    if (*v != "0" && *v != "1")
      throw UsageError(fmt::format("COLLBENCH_REPORT={}: accepted: 0, 1", *v));
    config.report = *v == "1";
  }
  if (const auto v = env("COLLBENCH_MAX_BYTES")) config.max_bytes = parse_bytes("COLLBENCH_MAX_BYTES", *v);
  if (const auto v = env("COLLBENCH_WAIT")) {
    if (*v == "auto") config.wait = WaitPolicy::automatic;
    else if (*v == "spin") config.wait = WaitPolicy::spin;
    else if (*v == "yield") config.wait = WaitPolicy::yield;
    else if (*v == "sleep") config.wait = WaitPolicy::sleep;
    else
      throw UsageError(
          fmt::format("COLLBENCH_WAIT={}: accepted: auto, spin, yield, sleep", *v));
  }
  const std::string fallback_default =
      config.selection ? "selection" : (config.params ? "auto" : "mpi");
  // (the choices are parsed below; auto's source is chosen after them)
  const auto global = env("COLLBENCH_ALGO");
  for (Collective coll : kAllCollectives) {
    const std::string var = env_name(coll);
    auto& choice = config.choice[static_cast<int>(coll)];
    if (const auto v = env(var))
      choice = parse_choice(coll, var, *v, config, true);
    else if (global)
      choice = parse_choice(coll, "COLLBENCH_ALGO", *global, config, false);
    else
      choice = parse_choice(coll, "COLLBENCH_ALGO", fallback_default, config, false);
  }
  bool any_auto = false;
  for (const Choice& c : config.choice) any_auto = any_auto || c.mode == Mode::automatic;
  if (any_auto)
    choose_auto_source(config, *env("COLLBENCH_PARAMS"),
                       env("COLLBENCH_PARAMS_TRANSPORT").value_or("mpi"),
                       env("COLLBENCH_TERMS").has_value());
  return config;
}

void choose_auto_source(Config& config, const std::string& params_file,
                        const std::string& transport, bool terms_given) {
  const std::string accuracy = models::fit_file_beside(params_file, "accuracy.csv");
  std::string why = "COLLBENCH_TERMS";
  if (!terms_given && !accuracy.empty()) {
    const auto best = models::best_calibrated_source(models::read_text_file(accuracy), accuracy,
                                                     transport);
    if (best && !best->terms.empty()) {
      // fit writes the level's names (older files: letters); both parse.
      const std::string setting = fmt::format("the best terms of {} ({})", accuracy, best->params);
      config.terms = models::parse_term_set(best->terms, setting);
      config.model_terms = models::load_model_terms(params_file, config.terms, setting);
    }
    if (best)
      why = fmt::format("best of {}: median |err| {:.1f}% >= {}, {:.1f}% below", accuracy,
                        100 * best->median_large, models::crossover_size_text(models::kLargeBytes),
                        100 * best->median_small);
  } else if (!terms_given) {
    why = "no fit/accuracy.csv beside COLLBENCH_PARAMS";
  }
  const std::string source =
      config.terms.empty() ? std::string("calibration")
                           : "calibration+" + models::term_set_text(config.terms);
  const std::string predictions = models::fit_file_beside(params_file, "predictions.csv");
  if (!predictions.empty()) {
    config.validated.emplace(models::read_text_file(predictions), predictions, source, transport);
    if (config.validated->empty()) config.validated.reset();
  }
  config.auto_line = fmt::format(
      "auto prices with {} ({}); a schedule replaces the library only where its predicted gain "
      "exceeds {}",
      config.terms.empty() ? std::string("the alpha-beta-gamma closed forms")
                           : "calibrated terms " + models::term_set_text(config.terms),
      why,
      config.validated ? fmt::format("the validated error of {} ({})", source, predictions)
                       : std::string("nothing (no fit/predictions.csv validated this source)"));
}

int predicted_best(const Config& config, Collective coll, int p, DataType dtype, ReduceOp op,
                   bool in_place, std::size_t count) {
  const models::Scenario s{coll, p, dtype, op, in_place};
  const bool priced = !config.terms.empty() && p <= kMaxTermsRanks;
  const auto algos = algorithms_for(coll);
  const auto price = [&](std::size_t i) {
    return priced ? models::priced_seconds(models::features_for(algos[i], s, count), *config.params,
                                           config.model_terms, config.terms)
                  : models::predict_seconds(algos[i], s, count, *config.params);
  };
  int best = -1;
  double best_t = 0;
  for (std::size_t i = 0; i < algos.size(); ++i) {
    const double t = price(i);
    if (best < 0 || t < best_t) {
      best = static_cast<int>(i) + 1;
      best_t = t;
    }
  }
  if (!config.library_tree) return best;
  // Do no harm: the library's own choice for this call, priced.
  const CallShape shape{coll, p, count, element_size(dtype), in_place};
  const std::string mpich = select_mpich_algorithm(*config.library_tree, shape);
  const std::string ours = mpich.empty() ? std::string() : collbench_algorithm(coll, mpich);
  const int library = ours.empty() || ours == "mpi" ? -1 : algorithm_slot(coll, ours);
  if (library < 0 || library == best) return kMpiSlot;
  const double error =
      config.validated ? config.validated->at(coll, p, models::bytes_for_count(coll, p, dtype, count))
                       : std::nan("");
  return models::gain_beyond_error(best_t, price(static_cast<std::size_t>(library - 1)), error)
             ? best
             : kMpiSlot;
}

}  // namespace cb::pmpi
