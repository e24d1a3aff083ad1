// The calibrated model's terms beyond alpha-beta-gamma, each one a measurable
// cause with its own microbenchmark in `collbench calibrate` (never fitted
// from the collectives it predicts). Each is named (`range`, `copy`, ...:
// kTerms below, the one table of names, old letters, descriptions and what
// each is fitted from; CSVs, flags and docs use the names). Before names
// they were letters a..j in the order they were added, still read:
//  range (a): protocol and cache regimes: alpha and beta per message-size range,
//      from the ping-pong size sweep split at its detected knees, after
//      subtracting the time of an empty run timed the same way (barrier exit
//      skew and start-up), which is charged once per collective instead;
//  copy (b): local memory traffic: delta, the seconds per byte of a local copy, and
//      the reduce cost per byte, both as functions of the working set (bytes
//      of the rank's buffers), from copy and reduce calibrations with every
//      rank working at once, plus a fixed cost per local operation (the slope
//      of k 8-byte copies in one step over k);
//  concurrency (c): alpha and beta per size range for a rank that sends and
//      receives in the same step (both directions streaming at once), from a
//      size sweep of a pairwise exchange, and of the same exchange reducing
//      what it receives (priced as one: a transport may fuse the reduce into
//      the receive, as IPC does);
//  overhead (d): LogGP overhead o: messages a rank posts together in one step overlap
//      their latency; each one after the first costs o (seconds), the slope
//      of a ping-pong of k small messages per direction over k;
//  forward (e): a message whose bytes the sender itself wrote earlier in
//      the collective (received, reduced or packed by a local copy) is read
//      while those lines are still dirty in the sender's cache, which costs
//      more than sending untouched input (over shared memory the receiver
//      pulls them from the other core). The extra seconds per byte by
//      message size, from a relay ping-pong (each rank sends back the bytes
//      it just received) against the plain ping-pong;
//  staged (f): staged reduces: the exchange as message-passing schedules write it,
//      receiving into scratch, copying the own part into the destination
//      and reducing the scratch into it, priced as one step from its own
//      size sweep (a transport may skip the staging copy, as IPC's
//      receive-reduce fusion does, which copy and concurrency would count);
//  flight (g): latency off the critical path: most of a one-way latency is spent in
//      flight, not by the sender, so a message whose receiver is busy with
//      another step, or whose sender has nothing to wait for, overlaps its
//      latency with that work. The flight time F (seconds) is the 8-byte
//      half round trip less what a sender spends per message: from a
//      pipelined ping-pong (two one-way 8-byte messages in consecutive
//      steps, then one back), which takes 2 alpha + (alpha - F); steps that
//      serialized would take 3 alpha. The schedule is then priced by
//      per-rank clocks along its dependencies (schedule_model.hpp);
//  incast (h): k >= 2 ranks sending to one rank in the same step share its
//      link, and over TCP their flows contend for the receiver's queue
//      (drops, retransmits, uneven shares), so the k messages take longer
//      than k times the bytes at the ping-pong's beta. The extra seconds
//      per received byte by k, from a fan-in microbenchmark (k senders each
//      send m bytes to one receiver in one step, at the large ping-pong
//      sizes) against the ping-pong, and for a receiver that sends to its
//      k peers in the same step (its outgoing data then shares its link
//      with the acknowledgements of what comes in) from a k-way exchange
//      among k + 1 ranks; measured only when calibrate runs on 3 or more
//      ranks;
//  buffering (j): a transport may take a send's bytes into its own
//      buffers (TCP's socket buffer, which the testbed lets grow to 64 MiB)
//      and complete the send before they cross the link, so a rank that
//      sends again in its next step (a tree's root, one child after the
//      other) has both messages on its link at once, and the first arrives
//      later. The fraction of an m-byte message buffered, by m, from a
//      fan-out (rank 0 sends m bytes to rank 1, then m to rank 2 while rank
//      1 sends them back to it): 2 one-way times when rank 0's first send
//      waits for its bytes to cross, up to 3 transfers when it does not;
//      measured only when calibrate runs on 3 or more ranks;
//  probe (i): on a VM whose cross-core communication switches between
//      coherence modes (fast and slow, 3-8x apart) between launches and
//      between configurations of one launch, one calibration holds for only
//      some of what it is judged on. The same short probe (an 8-byte and a
//      256 KiB exchange step, harness/sweep/mode_probe.hpp) is taken beside
//      the calibration and right before every measured configuration; a
//      row is priced with the messages' latencies scaled by the ratio of
//      the small probes and what forwarding and incast add per byte by that
//      of the large ones (models/mode_probe.hpp says which are which and
//      why). Without a probe on the row or in the calibration it changes
//      nothing, so it is a no-op for predict, map and run --transport sim,
//      which have no measured row.
// Pricing a schedule with them: models/schedule_model.hpp. Adding a term:
// docs/model.md, "Adding a term".
#pragma once

#include <bit>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace cb::models {

// One size range of a piecewise line t(m) = alpha_s + beta_s_per_B * m, for
// messages of from_B bytes up to the next range's from_B.
struct SizeRange {
  double from_B = 0;
  double alpha_s = 0;
  double beta_s_per_B = 0;
  friend bool operator==(const SizeRange&, const SizeRange&) = default;
};

// The range holding message size m (bytes): the last with from_B <= m, else
// the first. Empty ranges: nullptr.
const SizeRange* range_for(const std::vector<SizeRange>& ranges, double m);

// Per-byte cost (s/B) as a function of a size (bytes), interpolated linearly
// in log(size) between measured points and held constant beyond them.
struct Curve {
  std::vector<double> size_B;
  std::vector<double> s_per_B;
  bool empty() const { return size_B.empty(); }
  double at(double size) const;
  friend bool operator==(const Curve&, const Curve&) = default;
};

// The mode probe (term `probe`): seconds per exchange step at 8 bytes and at
// 256 KiB, both ranks of each pair sending and receiving at once. 0 = not
// measured.
struct ModeProbe {
  double small_s = 0;
  double large_s = 0;
  bool measured() const { return small_s > 0 && large_s > 0; }
  friend bool operator==(const ModeProbe&, const ModeProbe&) = default;
};

// The terms, in the order ablations add them (kTerms has one row each).
enum class Term : std::uint8_t {
  range, copy, concurrency, overhead, forward, staged, flight, incast, probe, buffering
};

// Which terms a prediction uses: a set of Term.
class TermSet {
 public:
  constexpr TermSet() = default;
  constexpr TermSet(std::initializer_list<Term> terms) {
    for (Term t : terms) add(t);
  }
  constexpr bool contains(Term t) const { return (bits_ >> static_cast<unsigned>(t)) & 1u; }
  constexpr void add(Term t) { bits_ |= 1u << static_cast<unsigned>(t); }
  constexpr bool empty() const { return bits_ == 0; }
  constexpr int size() const { return std::popcount(bits_); }
  friend constexpr bool operator==(TermSet, TermSet) = default;

 private:
  std::uint32_t bits_ = 0;
};

struct ModelTerms {
  std::vector<SizeRange> oneway;    // range: one message, one direction
  Curve copy;                       // copy: delta(working set), s/B copied
  Curve reduce;                     // copy: gamma(working set), s/B reduced
  std::vector<SizeRange> exchange;  // concurrency: sending and receiving at once
  std::vector<SizeRange> exchange_reduce;  // concurrency: the same, reducing what arrives
  std::vector<SizeRange> exchange_staged;  // staged: exchange staged: scratch, copy own, reduce
  double run_s = 0;                 // range: one run's fixed cost, once per collective
  double local_op_s = 0;            // copy: fixed cost of one local copy or reduce
  double overhead_s = 0;            // overhead: o per extra message in a step
  bool overhead_measured = false;
  Curve forward;                    // forward: extra s/B of forwarded bytes, by message size (B)
  double flight_s = 0;              // flight: F: seconds of a one-way latency spent in flight
  bool flight_measured = false;
  Curve incast;                     // incast: extra s/B received, by sender count k (size_B holds k)
  Curve incast_sending;             // incast: the same for a receiver sending to its k peers too
  ModeProbe probe;                  // probe: the mode probe taken beside the calibration
  // buffering: the fraction (0..1, in s_per_B) of an m-byte send the transport
  // buffers, by m (size_B, bytes); held at the nearest measured size beyond them.
  Curve buffered;
  // Whether the calibration measured `term` (a file from an older collbench
  // has none: its model is the baseline).
  bool has(Term term) const;
  friend bool operator==(const ModelTerms&, const ModelTerms&) = default;
};

// What the calibration file keeps of the terms' microbenchmarks beside
// their parameters (ModelTerms): the raw lists each term was fitted from, in
// seconds net of an empty run's time, sizes in BYTES. One field per column
// of kTermColumns that is not a parameter; models::Calibration derives from
// it, so `calibrate` fills them and every reader finds them by name.
struct TermRecords {
  std::vector<double> pingpong_s;  // range: ping-pong half round trips at pingpong_sizes_B
  // concurrency: both ranks send and receive at once: one exchange step per
  // size, and the same exchange reducing what arrives (fp32 sum)
  std::vector<double> exchange_sizes_B, exchange_s, exchange_reduce_s;
  std::vector<double> multi_messages, multi_s;  // overhead: half round trip of k 8-byte messages
  std::vector<double> local_ops_k, local_ops_s;  // copy: k 8-byte local copies in one step
  std::vector<double> relay_s;  // forward: relay ping-pong half round trips at pingpong_sizes_B
  std::vector<double> exchange_staged_s;  // staged: staged reducing exchange at exchange_sizes_B
  // flight: two one-way 8-byte messages in consecutive steps, then one back
  // (s); 0 = not measured (F was derived instead)
  double pipelined_s = 0;
  // incast: fan-in step times, k senders each sending m bytes to one
  // receiver, for each k of fanin_k and m of fanin_sizes_B, k-major (empty on
  // 2 ranks); and the k-way exchange's (ranks 0..k each send m to every other)
  std::vector<double> fanin_k, fanin_sizes_B, fanin_s, fanin_exchange_s;
  // buffering: fan-out times (s) per size (B); empty on 2 ranks
  std::vector<double> fanout_sizes_B, fanout_s;
  friend bool operator==(const TermRecords&, const TermRecords&) = default;
};

// One row per term: the one place a term's name, old letter, description
// and measured-test live (reports, flags, parsing and ablations read it).
struct TermInfo {
  Term term;
  std::string_view name;        // its spelling in CSVs, flags and docs
  char letter;                  // its spelling before names (a..j), still read
  std::string_view prices;      // what it prices
  std::string_view fitted_from; // the microbenchmark its parameters are fitted from
  bool (*measured)(const ModelTerms&);  // whether a calibration holds it
};

// In the order ablations add them ("" the alpha-beta-gamma baseline, then
// range, then range+copy, ...): the order of Term and of the old letters.
inline constexpr TermInfo kTerms[] = {
    {Term::range, "range", 'a', "α and β per message-size range",
     "ping-pong size sweep, split at its detected knees (eager/rendezvous, "
     "cache-resident/streaming), net of an empty run's time, which is charged once per "
     "collective",
     [](const ModelTerms& t) { return !t.oneway.empty(); }},
    {Term::copy, "copy", 'b',
     "δ per byte of each local copy and the reduce cost per byte at the rank's working set, plus "
     "a fixed cost per local operation",
     "copy and reduce calibrations, every rank at once",
     [](const ModelTerms& t) { return !t.copy.empty() && !t.reduce.empty(); }},
    {Term::concurrency, "concurrency", 'c',
     "α and β per size range when a rank sends and receives in one step, and when it also "
     "reduces what arrives (receive and reduce priced as one)",
     "pairwise-exchange size sweeps, copying and reducing",
     [](const ModelTerms& t) { return !t.exchange.empty(); }},
    {Term::overhead, "overhead", 'd',
     "LogGP overhead o: each message after the first in a step costs o instead of α",
     "ping-pong of k small messages per direction",
     [](const ModelTerms& t) { return t.overhead_measured; }},  // o = 0 is a measurement too
    {Term::forward, "forward", 'e',
     "extra cost per byte of a message whose bytes the sender wrote earlier in the collective "
     "(received, reduced or packed), by message size",
     "relay ping-pong (each rank sends back what it just received) against the plain one",
     [](const ModelTerms& t) { return !t.forward.empty(); }},
    {Term::staged, "staged", 'f',
     "a step that receives into scratch, copies its own part into the destination and reduces "
     "the scratch into it, priced as one",
     "size sweep of that exchange",
     [](const ModelTerms& t) { return !t.exchange_staged.empty(); }},
    {Term::flight, "flight", 'g',
     "latency off the critical path: each rank keeps its own clock and a step waits only for "
     "the messages it receives, which fly for F of the one-way latency while their sender goes "
     "on",
     "pipelined ping-pong (two one-way messages in consecutive steps, then one back) against "
     "the plain one",
     // F = 0 is a measurement too (steps serialize).
     [](const ModelTerms& t) { return t.flight_measured; }},
    {Term::incast, "incast", 'h',
     "extra cost per byte a rank receives from k >= 2 senders in one step, by k, receiving only "
     "or sending to the k peers too",
     "fan-in (k senders, one receiver) and k-way exchange (k + 1 ranks), large sizes, against "
     "the ping-pong; calibrate on 3 or more ranks",
     [](const ModelTerms& t) { return !t.incast.empty() && !t.incast_sending.empty(); }},
    {Term::probe, "probe", 'i',
     "each measured configuration priced in the coherence mode it ran in, the messages' "
     "latencies scaled by the ratio of its 8-byte exchange probe to the calibration's, what "
     "forwarding and incast add per byte by that of the 256 KiB probes; a no-op without a probe "
     "on the rows (predict, map, sim)",
     "the mode probe (an 8-byte and a 256 KiB exchange step) beside the calibration and before "
     "each measured configuration",
     [](const ModelTerms& t) { return t.probe.measured(); }},
    {Term::buffering, "buffering", 'j',
     "the fraction of a send the transport buffers, completing it before its bytes cross, so a "
     "rank's sends in consecutive steps share its link",
     "fan-out (one rank sends to a second, then to a third while the second sends back), by "
     "size; calibrate on 3 or more ranks",
     [](const ModelTerms& t) { return !t.buffered.empty(); }},
};

// The row of `term`.
const TermInfo& term_info(Term term);

// The cells of a calibration file's row as kTermColumns reads them
// (models/calibration.cpp implements them over the file). Each throws
// UsageError naming the file, line and column of a malformed cell.
class TermCells {
 public:
  virtual ~TermCells() = default;
  // Whether the file has `column` and its cell is not empty.
  virtual bool filled(std::string_view column) const = 0;
  // The cell as one number >= 0.
  virtual double number(std::string_view column) const = 0;
  // ';'-separated numbers; a column named *_s holds times >= 0. Absent: empty.
  virtual std::vector<double> numbers(std::string_view column) const = 0;
  // format_ranges text; absent: empty.
  virtual std::vector<SizeRange> ranges(std::string_view column) const = 0;
  // A curve from two columns of equally many numbers, `sizes` ascending.
  virtual Curve curve(std::string_view sizes, std::string_view values) const = 0;
};

// Cell text, the shortest that reads back to the same doubles (a file
// round-trips exactly): one number; numbers joined by ';'; format_ranges,
// CSV-escaped.
std::string number_cell(double v);
std::string numbers_cell(const std::vector<double>& v);
std::string ranges_cell(const std::vector<SizeRange>& ranges);

// One column of the calibration file that a term owns: its name, how its
// cell is written from the term's parameters and records, and how it is
// read back (older files lack it: the cell reads as empty, and a term whose
// columns are empty is not measured, ModelTerms::has).
struct TermColumn {
  std::string_view name;
  Term term;
  std::string (*write)(const TermRecords&, const ModelTerms&);
  void (*read)(const TermCells&, const TermColumn&, TermRecords&, ModelTerms&);
  std::string_view sizes = {};  // a curve's values column: the column of its sizes
};

// Column kinds: a list of records, a parameter's size ranges, a fitted
// number, a curve's sizes (read with its values) and its values.
template <auto list>  // std::vector<double> TermRecords::*
constexpr TermColumn records_column(std::string_view name, Term term) {
  return {name, term, [](const TermRecords& r, const ModelTerms&) { return numbers_cell(r.*list); },
          [](const TermCells& in, const TermColumn& c, TermRecords& r, ModelTerms&) {
            r.*list = in.numbers(c.name);
          }};
}
template <auto ranges>  // std::vector<SizeRange> ModelTerms::*
constexpr TermColumn ranges_column(std::string_view name, Term term) {
  return {name, term, [](const TermRecords&, const ModelTerms& t) { return ranges_cell(t.*ranges); },
          [](const TermCells& in, const TermColumn& c, TermRecords&, ModelTerms& t) {
            t.*ranges = in.ranges(c.name);
          }};
}
// A fitted number written with every measured file (the ping-pong ran) and
// read where the cell is filled (older files keep the default).
template <auto value>  // double ModelTerms::*
constexpr TermColumn fitted_column(std::string_view name, Term term) {
  return {name, term,
          [](const TermRecords& r, const ModelTerms& t) {
            return r.pingpong_s.empty() ? std::string() : number_cell(t.*value);
          },
          [](const TermCells& in, const TermColumn& c, TermRecords&, ModelTerms& t) {
            if (in.filled(c.name)) t.*value = in.number(c.name);
          }};
}
template <auto curve>  // Curve ModelTerms::*
constexpr TermColumn curve_sizes_column(std::string_view name, Term term) {
  return {name, term,
          [](const TermRecords&, const ModelTerms& t) { return numbers_cell((t.*curve).size_B); },
          [](const TermCells&, const TermColumn&, TermRecords&, ModelTerms&) {}};
}
template <auto curve>
constexpr TermColumn curve_values_column(std::string_view name, Term term,
                                         std::string_view sizes) {
  return {name, term,
          [](const TermRecords&, const ModelTerms& t) { return numbers_cell((t.*curve).s_per_B); },
          [](const TermCells& in, const TermColumn& c, TermRecords&, ModelTerms& t) {
            t.*curve = in.curve(c.sizes, c.name);
          },
          sizes};
}

// The terms' columns of the calibration file, in the order it writes them
// (after the baseline's and before the two-level columns,
// models/calibration.hpp). A term's columns are its parameters and the
// records they were fitted from; a new term appends its own at the end
// (older files lack them and still load).
inline constexpr TermColumn kTermColumns[] = {
    records_column<&TermRecords::pingpong_s>("pingpong_s", Term::range),
    // range: ';'-separated from_B:alpha_s:beta_s_per_B, the ping-pong per size range
    ranges_column<&ModelTerms::oneway>("oneway_ranges", Term::range),
    // copy: seconds per copied (reduced, fp32 sum) byte at each working set,
    // the buffers of every rank at once
    curve_sizes_column<&ModelTerms::copy>("copy_ws_B", Term::copy),
    curve_values_column<&ModelTerms::copy>("copy_s_per_B", Term::copy, "copy_ws_B"),
    curve_sizes_column<&ModelTerms::reduce>("reduce_ws_B", Term::copy),
    curve_values_column<&ModelTerms::reduce>("reduce_s_per_B", Term::copy, "reduce_ws_B"),
    records_column<&TermRecords::exchange_sizes_B>("exchange_sizes_B", Term::concurrency),
    records_column<&TermRecords::exchange_s>("exchange_s", Term::concurrency),
    ranges_column<&ModelTerms::exchange>("exchange_ranges", Term::concurrency),
    records_column<&TermRecords::multi_messages>("multi_messages", Term::overhead),
    records_column<&TermRecords::multi_s>("multi_s", Term::overhead),
    // overhead: o, the slope over k; written with every measured file (a
    // file from before it lacks the column: the term is refused for it)
    {"overhead_s", Term::overhead,
     [](const TermRecords& r, const ModelTerms& t) {
       return r.pingpong_s.empty() ? std::string() : number_cell(t.overhead_s);
     },
     [](const TermCells& in, const TermColumn& c, TermRecords&, ModelTerms& t) {
       t.overhead_measured = in.filled(c.name);
       if (t.overhead_measured) t.overhead_s = in.number(c.name);
     }},
    // range: an empty run's time, subtracted from every microbenchmark and
    // charged once per collective
    fitted_column<&ModelTerms::run_s>("run_s", Term::range),
    records_column<&TermRecords::local_ops_k>("local_ops_k", Term::copy),
    records_column<&TermRecords::local_ops_s>("local_ops_s", Term::copy),
    // copy: the fixed cost of one local op, the slope of local_ops_s over k
    fitted_column<&ModelTerms::local_op_s>("local_op_s", Term::copy),
    records_column<&TermRecords::exchange_reduce_s>("exchange_reduce_s", Term::concurrency),
    ranges_column<&ModelTerms::exchange_reduce>("exchange_reduce_ranges", Term::concurrency),
    records_column<&TermRecords::relay_s>("relay_s", Term::forward),
    // forward: the relay's extra seconds per byte over the plain ping-pong,
    // by message size, >= 0
    curve_sizes_column<&ModelTerms::forward>("forward_size_B", Term::forward),
    curve_values_column<&ModelTerms::forward>("forward_s_per_B", Term::forward, "forward_size_B"),
    records_column<&TermRecords::exchange_staged_s>("exchange_staged_s", Term::staged),
    ranges_column<&ModelTerms::exchange_staged>("exchange_staged_ranges", Term::staged),
    {"pipelined_s", Term::flight,
     [](const TermRecords& r, const ModelTerms&) {
       return r.pipelined_s > 0 ? number_cell(r.pipelined_s) : std::string();
     },
     [](const TermCells& in, const TermColumn& c, TermRecords& r, ModelTerms&) {
       if (in.filled(c.name)) r.pipelined_s = in.number(c.name);
     }},
    // flight: F, seconds of the 8-byte one-way latency spent in flight
    // (older files lack the column, so the term is refused for them)
    {"flight_s", Term::flight,
     [](const TermRecords&, const ModelTerms& t) {
       return t.flight_measured ? number_cell(t.flight_s) : std::string();
     },
     [](const TermCells& in, const TermColumn& c, TermRecords&, ModelTerms& t) {
       t.flight_measured = in.filled(c.name);
       if (t.flight_measured) t.flight_s = in.number(c.name);
     }},
    records_column<&TermRecords::fanin_k>("fanin_k", Term::incast),
    records_column<&TermRecords::fanin_sizes_B>("fanin_sizes_B", Term::incast),
    records_column<&TermRecords::fanin_s>("fanin_s", Term::incast),
    records_column<&TermRecords::fanin_exchange_s>("fanin_exchange_s", Term::incast),
    // incast: the extra seconds per received byte at each k, >= 0, from the
    // fan-in and from the k-way exchange
    curve_sizes_column<&ModelTerms::incast>("incast_k", Term::incast),
    curve_values_column<&ModelTerms::incast>("incast_s_per_B", Term::incast, "incast_k"),
    curve_values_column<&ModelTerms::incast_sending>("incast_sending_s_per_B", Term::incast,
                                                     "incast_k"),
    // probe: the mode probe taken right after the microbenchmarks, seconds
    // per exchange step at 8 B and 256 KiB (harness/sweep/mode_probe.hpp);
    // both cells or neither
    {"probe_small_s", Term::probe,
     [](const TermRecords&, const ModelTerms& t) {
       return t.probe.measured() ? number_cell(t.probe.small_s) : std::string();
     },
     [](const TermCells& in, const TermColumn& c, TermRecords&, ModelTerms& t) {
       if (in.filled(c.name) && in.filled("probe_large_s"))
         t.probe = {in.number(c.name), in.number("probe_large_s")};
     }},
    {"probe_large_s", Term::probe,
     [](const TermRecords&, const ModelTerms& t) {
       return t.probe.measured() ? number_cell(t.probe.large_s) : std::string();
     },
     [](const TermCells&, const TermColumn&, TermRecords&, ModelTerms&) {}},  // with probe_small_s
    records_column<&TermRecords::fanout_sizes_B>("fanout_sizes_B", Term::buffering),
    records_column<&TermRecords::fanout_s>("fanout_s", Term::buffering),
    // buffering: the fraction of an m-byte send the transport buffered, 0..1
    curve_sizes_column<&ModelTerms::buffered>("buffered_size_B", Term::buffering),
    curve_values_column<&ModelTerms::buffered>("buffered_fraction", Term::buffering,
                                               "buffered_size_B"),
};

// One line per term for reports: "name: what it prices: fitted from what".
std::string term_description(Term term);

// kTerms as CSV, header `term,letter,prices,fitted_from` then one row per
// term in kTerms order (`collbench list --terms-csv`; docs/model.md's table
// of terms is rendered from it by scripts/gen_terms_table.py).
std::string terms_csv();

// The set as text: its names in kTerms order joined by '+' ("range+copy");
// "" for the empty set (the baseline).
std::string term_set_text(TermSet terms);

// A set from text: names separated by ',' or '+' ("range,copy,flight"), or
// the old letters ("abg"), each term once; "" is the empty set. Throws
// std::invalid_argument with a one-line reason naming the bad part and what
// is accepted.
TermSet parse_term_set(std::string_view text);

// The cumulative ablation levels: {}, {range}, {range, copy}, ..., every term.
std::vector<TermSet> ablation_levels();

// The terms of `level` the calibration measured: a level is named by what it
// prices (a file from before forward and staged gives range..overhead+flight).
TermSet measured_terms(TermSet level, const ModelTerms& t);

// "1024:3.1e-07:9.8e-11;65536:..." and back (calibration file cells).
std::string format_ranges(const std::vector<SizeRange>& ranges);
// Throws std::invalid_argument on malformed text.
std::vector<SizeRange> parse_ranges(const std::string& text);

// Size ranges from a size sweep: detect the knees (knees.hpp), then a robust
// relative line per segment. bytes ascending, seconds > 0.
std::vector<SizeRange> fit_ranges(const std::vector<double>& bytes,
                                  const std::vector<double>& seconds);

}  // namespace cb::models
