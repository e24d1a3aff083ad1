#include "models/summary_csv.hpp"

#include <fmt/format.h>

#include "models/csv_text.hpp"
#include "models/report_levels.hpp"
#include "models/targets.hpp"

namespace cb::models {

std::string summary_csv(const Analysis& a) {
  std::string out = "kind,transport,number,text\n";
  const auto row = [&](std::string_view kind, std::string_view transport, std::string_view number,
                       std::string_view text) {
    out += fmt::format("{},{},{},{}\n", kind, csv_escape(transport), number, csv_escape(text));
  };
  row("source", "", std::to_string(a.rows), a.source_file);
  row("configs", "", std::to_string(a.configs.size()), "");
  for (const CalibrationInput& c : a.calibrations) row("calibration", c.transport, "", c.file);
  for (const TransportFit& tf : a.transports)
    row("transport", tf.transport, tf.fit ? std::to_string(tf.fit->points) : "", "");
  for (const TransportFit& tf : a.transports)
    for (const auto& [why, n] : tf.excluded) row("excluded", tf.transport, std::to_string(n), why);
  for (const TransportFit& tf : a.transports)
    if (!a.calibrations.empty() && !calibration_for(a, tf.transport))
      row("uncalibrated", tf.transport, "", "");
  std::size_t over = 0;
  for (const ConfigResult& c : a.configs)
    for (const Measurement* m : c.points) over += m->oversubscribed;
  if (over > 0) row("oversubscribed", "", std::to_string(over), "");
  for (const TransportFit& tf : a.transports)
    if (!tf.note.empty()) row("note", tf.transport, "", tf.note);
  row("error_band", "", csv_number(kErrorBand), "");
  row("crossover_band", "", csv_number(kCrossoverBand), "");
  for (const std::string& level : shown_levels(a)) row("shown_level", "", "", level);
  for (const TermInfo& info : kTerms) row("term", "", "", term_description(info.term));
  for (Collective c : kAllCollectives) row("collective", "", "", to_string(c));
  return out;
}

}  // namespace cb::models
