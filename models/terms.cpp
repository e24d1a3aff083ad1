#include "models/terms.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>
#include <stdexcept>

#include "models/csv_text.hpp"
#include "models/knees.hpp"

namespace cb::models {

const SizeRange* range_for(const std::vector<SizeRange>& ranges, double m) {
  if (ranges.empty()) return nullptr;
  const SizeRange* r = &ranges.front();
  for (const SizeRange& x : ranges)
    if (x.from_B <= m) r = &x;
  return r;
}

double Curve::at(double size) const {
  if (size_B.empty()) return 0;
  if (size <= size_B.front()) return s_per_B.front();
  if (size >= size_B.back()) return s_per_B.back();
  const auto hi = static_cast<std::size_t>(
      std::upper_bound(size_B.begin(), size_B.end(), size) - size_B.begin());
  const std::size_t lo = hi - 1;
  const double f = std::log(size / size_B[lo]) / std::log(size_B[hi] / size_B[lo]);
  return s_per_B[lo] + f * (s_per_B[hi] - s_per_B[lo]);
}

const TermInfo& term_info(Term term) {
  for (const TermInfo& info : kTerms)
    if (info.term == term) return info;
  throw std::logic_error("a Term without its row in kTerms");
}

bool ModelTerms::has(Term term) const { return term_info(term).measured(*this); }

std::string term_description(Term term) {
  const TermInfo& info = term_info(term);
  return fmt::format("{}: {}: {}", info.name, info.prices, info.fitted_from);
}

std::string terms_csv() {
  std::string out = "term,letter,prices,fitted_from\n";
  for (const TermInfo& info : kTerms)
    out += fmt::format("{},{},{},{}\n", csv_escape(info.name), csv_escape({&info.letter, 1}),
                       csv_escape(info.prices), csv_escape(info.fitted_from));
  return out;
}

std::string term_set_text(TermSet terms) {
  std::string out;
  for (const TermInfo& info : kTerms)
    if (terms.contains(info.term)) out += fmt::format("{}{}", out.empty() ? "" : "+", info.name);
  return out;
}

namespace {

std::string accepted_terms() {
  std::string names, letters;
  for (const TermInfo& info : kTerms) {
    names += fmt::format("{}{}", names.empty() ? "" : ", ", info.name);
    letters += info.letter;
  }
  return fmt::format("accepted: names of {} separated by ',' or '+', or the letters {}; each "
                     "term once",
                     names, letters);
}

const TermInfo* by_name(std::string_view name) {
  for (const TermInfo& info : kTerms)
    if (info.name == name) return &info;
  return nullptr;
}

const TermInfo* by_letter(char letter) {
  for (const TermInfo& info : kTerms)
    if (info.letter == letter) return &info;
  return nullptr;
}

void add_once(TermSet& set, Term term, std::string_view spelled) {
  if (set.contains(term))
    throw std::invalid_argument(
        fmt::format("'{}' is named twice ({})", spelled, accepted_terms()));
  set.add(term);
}

// The old spelling: one word of letters, every one a term's. Nullopt when
// the word is not all letters of terms (then it is a misspelled name).
std::optional<TermSet> parse_letters(std::string_view word) {
  for (char ch : word)
    if (!by_letter(ch)) return std::nullopt;
  TermSet set;
  for (char ch : word) add_once(set, by_letter(ch)->term, std::string_view(&ch, 1));
  return set;
}

}  // namespace

TermSet parse_term_set(std::string_view text) {
  TermSet set;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t end = std::min(text.find_first_of(",+", pos), text.size());
    const std::string_view word = text.substr(pos, end - pos);
    const TermInfo* info = by_name(word);
    // The old spelling is one word of letters, the whole text.
    if (!info && pos == 0 && end == text.size())
      if (const std::optional<TermSet> letters = parse_letters(word)) return *letters;
    if (!info)
      throw std::invalid_argument(fmt::format("'{}' is not a term ({})", word, accepted_terms()));
    add_once(set, info->term, word);
    pos = end + 1;
    if (end + 1 == text.size())
      throw std::invalid_argument(
          fmt::format("'{}' ends in a separator ({})", text, accepted_terms()));
  }
  return set;
}

std::vector<TermSet> ablation_levels() {
  std::vector<TermSet> out(1);
  for (const TermInfo& info : kTerms) {
    TermSet next = out.back();
    next.add(info.term);
    out.push_back(next);
  }
  return out;
}

TermSet measured_terms(TermSet level, const ModelTerms& t) {
  TermSet out;
  for (const TermInfo& info : kTerms)
    if (level.contains(info.term) && t.has(info.term)) out.add(info.term);
  return out;
}

std::string number_cell(double v) { return fmt::format("{}", v); }

std::string numbers_cell(const std::vector<double>& v) {
  std::string out;
  for (double x : v) out += fmt::format("{}{}", out.empty() ? "" : ";", x);
  return out;
}

std::string ranges_cell(const std::vector<SizeRange>& ranges) {
  return csv_escape(format_ranges(ranges));
}

std::string format_ranges(const std::vector<SizeRange>& ranges) {
  std::string out;
  for (const SizeRange& r : ranges)
    out += fmt::format("{}{}:{}:{}", out.empty() ? "" : ";", r.from_B, r.alpha_s,
                       r.beta_s_per_B);  // shortest exact text: the file round-trips
  return out;
}

std::vector<SizeRange> parse_ranges(const std::string& text) {
  std::vector<SizeRange> out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t end = std::min(text.find(';', pos), text.size());
    double v[3];
    std::size_t at = pos;
    for (int k = 0; k < 3; ++k) {
      const std::size_t stop = k < 2 ? std::min(text.find(':', at), end) : end;
      const auto [p, ec] = std::from_chars(text.data() + at, text.data() + stop, v[k]);
      if (ec != std::errc() || p != text.data() + stop || !std::isfinite(v[k]) || v[k] < 0)
        throw std::invalid_argument(fmt::format(
            "'{}' is not a ';'-separated list of from_B:alpha_s:beta_s_per_B (numbers >= 0)",
            text));
      at = stop + 1;
    }
    out.push_back({v[0], v[1], v[2]});
    pos = end + 1;
  }
  return out;
}

std::vector<SizeRange> fit_ranges(const std::vector<double>& bytes,
                                  const std::vector<double>& seconds) {
  std::vector<SizeRange> out;
  if (bytes.size() < 2) return out;
  // Up to 6 regimes (e.g. latency-bound, eager, rendezvous in cache, out of
  // cache); a segment must still halve the misfit's RMS to be kept.
  KneeOptions opt;
  opt.max_segments = 6;
  opt.look_past_one = true;
  const Piecewise pw = detect_knees(bytes, seconds, opt);
  for (const Segment& s : pw.segments)
    out.push_back({s.first == 0 ? 0.0 : bytes[s.first], s.a_s, s.b_s_per_B});
  return out;
}

}  // namespace cb::models
