// collbench: benchmark collective-communication algorithms. Subcommands are
// registered from kCommands (see commands.hpp); MPI is initialised lazily by
// the commands that need ranks (world.hpp), so `list` or `fit` never start it.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include "algorithms/check.hpp"
#include "algorithms/types.hpp"
#include "harness/cli/commands.hpp"
#include "harness/cli/option_values.hpp"
#include "harness/cli/version.hpp"
#include "harness/runtime/world.hpp"
#include "models/io/output_file.hpp"
#include "transports/contract/interrupt.hpp"
#include "transports/watchdog.hpp"

namespace {

using AddCommand = cb::Command (*)(CLI::App&);
constexpr AddCommand kCommands[] = {
    cb::add_run_command,
    cb::add_list_command,
    cb::add_calibrate_command,
    cb::add_fit_command,
    cb::add_recommend_command,
    cb::add_predict_command,
    cb::add_map_command,
    cb::add_arrival_check_command,
    cb::add_refine_sizes_command,
    cb::add_repeat_agreement_command,
    cb::add_compare_command,
    cb::add_compare_rounds_command,
    cb::add_plot_command,
    cb::add_report_command,
};

// `collbench help [COMMAND]`, as git and nccl users type it; same text as --help.
void add_help_command(CLI::App& app) {
  auto topic = std::make_shared<std::string>();
  CLI::App* help = app.add_subcommand("help", "Print the help of collbench or of one command");
  help->add_option("COMMAND", *topic, "The command to explain (run, list, ...)");
  help->callback([&app, topic] {
    // App::help() would delegate to the selected subcommand (this one).
    if (topic->empty()) {
      fmt::print("{}", app.get_formatter()->make_help(&app, app.get_name(),
                                                      CLI::AppFormatMode::Normal));
      return;
    }
    CLI::App* sub = nullptr;
    for (CLI::App* s : app.get_subcommands({}))
      if (s->get_name() == *topic) sub = s;
    if (!sub || sub->get_name() == "help") {
      std::string names;
      for (CLI::App* s : app.get_subcommands({}))
        if (s->get_name() != "help")
          names += fmt::format("{}{}", names.empty() ? "" : ", ", s->get_name());
      throw cb::UsageError(fmt::format("help: unknown command '{}' (commands: {})", *topic, names));
    }
    fmt::print("{}", sub->help(app.get_name()));
  });
}

}  // namespace

// Long on purpose: the process's whole life (MPI, signals, CLI, exit codes) read in order.
int main(int argc, char** argv) {
  CLI::App app{"collbench: collective-communication algorithm benchmark"};
  app.require_subcommand(1);
  app.set_version_flag("-V,--version", std::function<std::string()>(cb::version_text),
                       "Print the version, git revision and MPI/CUDA/NCCL versions, then exit");
  std::vector<cb::Command> commands;
  for (AddCommand add : kCommands) commands.push_back(add(app));
  add_help_command(app);
  cb::add_value_checks(app);
  cb::set_command_line(argc, argv);
  int command_status = 0;
  try {
    app.parse(argc, argv);
    for (const cb::Command& command : commands)
      if (command.app->parsed()) command_status = command.action();
    // `list > /dev/full` must not exit 0: a failed stdout write is an error.
    // A command that already said its write failed (run --json - > /dev/full)
    // is not told again.
    if (cb::is_reporting_rank() && command_status != cb::kExitWriteFailed)
      cb::io::check_stdout();
  } catch (const CLI::ParseError& e) {
    // A CLI11 ParseError may escape before any command ran: MPI is not up yet.
    // --help and --version are "errors" with exit code 0: CLI11 prints them.
    // Real ones get our one-line format instead of CLI11's two lines.
    int status = 0;
    if (e.get_exit_code() == 0) {
      if (cb::is_reporting_rank()) {
        app.exit(e);
        // `--version > /dev/full` is a failed write like any other (exit 4).
        try {
          cb::io::check_stdout();
        } catch (const cb::io::WriteError& w) {
          fmt::print(stderr, "collbench: error: {}\n", w.what());
          status = cb::kExitWriteFailed;
        }
      }
    } else {
      status = 2;
      if (cb::is_reporting_rank())
        fmt::print(stderr, "collbench: error: {}\n", cb::explain_parse_error(app, e));
    }
    cb::announce_exit_status(status);
    cb::finalize_world();
    return status;
  } catch (const cb::UsageError& e) {
    // Every rank sees the same arguments and fails the same way; one prints.
    if (cb::is_reporting_rank()) fmt::print(stderr, "collbench: error: {}\n", e.what());
    cb::announce_exit_status(2);
    cb::finalize_world();
    return 2;
  } catch (const std::system_error& e) {
    // fmt::print's failed write to stdout (`list > /dev/full` with a long list).
    try {
      cb::io::rethrow_print_error(e, "standard output");
    } catch (const cb::io::WriteError& w) {
      fmt::print(stderr, "collbench: error: {}\n", w.what());
    } catch (const std::exception& other) {
      fmt::print(stderr, "collbench: internal error: {}\n", other.what());
      cb::abort_world(3);
    }
    if (cb::world_started() && cb::world().size() > 1) cb::abort_world(cb::kExitWriteFailed);
    cb::finalize_world();
    return cb::kExitWriteFailed;
  } catch (const cb::io::WriteError& e) {
    // A full disk or a closed stdout: one line; other ranks may be waiting.
    fmt::print(stderr, "collbench: error: {}\n", e.what());
    if (cb::world_started() && cb::world().size() > 1) cb::abort_world(cb::kExitWriteFailed);
    cb::finalize_world();
    return cb::kExitWriteFailed;
  } catch (const cb::Interrupted& e) {
    // Every rank agreed on the signal (timing.hpp) and stops at the same point.
    if (cb::is_reporting_rank())
      fmt::print(stderr, "collbench: interrupted (signal {}) {}\n", e.signal, e.what());
    cb::announce_exit_status(128 + e.signal);
    cb::finalize_world();
    return 128 + e.signal;
  } catch (const cb::WatchdogExpired& e) {
    fmt::print(stderr, "collbench: error: {}\n", e.what());
    cb::run_abrupt_exit_hook();  // shared-memory names: no exit() handlers run
    cb::announce_exit_status(cb::kExitWatchdog);
    std::_Exit(cb::kExitWatchdog);  // no MPI_Finalize: it would wait for the stopped peer
  } catch (const std::exception& e) {
    fmt::print(stderr, "collbench: internal error: {}\n", e.what());
    cb::abort_world(3);
    return 3;
  }
  cb::announce_exit_status(command_status);
  cb::finalize_world();
  return command_status;
}
