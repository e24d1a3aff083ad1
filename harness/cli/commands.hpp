// The subcommands of `collbench`. Each lives in its own harness/cli/cmd_<name>.cpp
// and registers itself on the top-level app through one add_<name>_command()
// declared here and called from main.cpp (kCommands). Adding a subcommand =
// one file, one declaration here, one entry in main.cpp, one line in
// harness/meson.build.
//
// A command's action reports bad user input by throwing cb::UsageError (main
// prints it as one line and exits 2) and returns the exit status otherwise
// (harness/runtime/exit_status.hpp: 0, or 1 for wrong results, ...).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "harness/runtime/exit_status.hpp"

namespace CLI {
class App;
}

namespace cb {

// A registered subcommand and what it does once its flags are parsed; main
// runs the action of the subcommand the command line named and exits with
// the status it returns.
struct Command {
  CLI::App* app = nullptr;
  std::function<int()> action;
};

Command add_run_command(CLI::App& app);
Command add_list_command(CLI::App& app);
Command add_fit_command(CLI::App& app);
Command add_calibrate_command(CLI::App& app);
Command add_predict_command(CLI::App& app);
Command add_map_command(CLI::App& app);
Command add_compare_command(CLI::App& app);
Command add_compare_rounds_command(CLI::App& app);
Command add_plot_command(CLI::App& app);
Command add_report_command(CLI::App& app);
Command add_recommend_command(CLI::App& app);
Command add_arrival_check_command(CLI::App& app);
Command add_refine_sizes_command(CLI::App& app);
Command add_repeat_agreement_command(CLI::App& app);

// The command line as typed (main sets it; run records it in JSON).
void set_command_line(int argc, char** argv);
const std::vector<std::string>& command_line();

// --timeout of run and calibrate: checks `seconds` (0 = no bound, up to a
// week; else UsageError) and makes it the watchdog's bound on each wait.
void set_timeout_option(double seconds);

}  // namespace cb
