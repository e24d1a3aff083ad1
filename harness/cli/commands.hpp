// The subcommands of `collbench`. Each lives in its own harness/cli/cmd_<name>.cpp
// and registers itself on the top-level app through one add_<name>_command()
// declared here and called from main.cpp (kCommands). Adding a subcommand =
// one file, one declaration here, one entry in main.cpp, one line in
// harness/meson.build.
//
// A command's callback reports bad user input by throwing cb::UsageError (main
// prints it as one line and exits 2) and a failed run (wrong results) through
// set_exit_status().
#pragma once

#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace cb {

void add_run_command(CLI::App& app);
void add_list_command(CLI::App& app);
void add_fit_command(CLI::App& app);
void add_calibrate_command(CLI::App& app);
void add_predict_command(CLI::App& app);
void add_map_command(CLI::App& app);
void add_compare_command(CLI::App& app);
void add_plot_command(CLI::App& app);
void add_report_command(CLI::App& app);
void add_recommend_command(CLI::App& app);

// The command line as typed (main sets it; run records it in JSON).
void set_command_line(int argc, char** argv);
const std::vector<std::string>& command_line();

// Exit statuses (USAGE.md): 0 ok, 1 wrong elements, 2 bad input, 3 internal
// error, 4 an output could not be written (full disk, closed stdout), 5 the
// watchdog expired (a peer stopped), 128 + signal when interrupted.
inline constexpr int kExitWriteFailed = 4;
inline constexpr int kExitWatchdog = 5;

// --timeout of run and calibrate: checks `seconds` (0 = no bound, up to a
// week; else UsageError) and makes it the watchdog's bound on each wait.
void set_timeout_option(double seconds);

// Exit status main() returns once the command's callback finished (default 0).
void set_exit_status(int status);
int exit_status();

}  // namespace cb
