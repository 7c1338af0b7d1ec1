// SIGINT and SIGTERM as a request to stop a run cleanly.  Once install()ed, the first of them
// only sets a flag (the handler is then reset, so a second one ends the process at once).  The
// flag is seen in two places: the simulation driver checks it between slices of simulated
// time, and every block's progress() (sim_context) checks it, so that a loosely-timed thread
// that runs far ahead without yielding stops too: progress() stops the kernel (sc_stop) and
// throws `stop`, which unwinds the process's body to sim_context::guard.  The run ends with
// status `interrupted`, its outputs are written as for any other ending, and the command exits
// with 128 + the signal (130 for SIGINT, 143 for SIGTERM), as a shell reports a process the
// signal ended.
#pragma once

namespace trainvp {

class run_interrupt {
public:
    // Thrown by sim_context::progress() inside a process once a stop was requested; caught by
    // sim_context::guard (not an error).  Not a std::exception: nothing else catches it.
    struct stop {};

    // Installs the handlers for SIGINT and SIGTERM.
    static void install();
    // Whether install() was called (the driver then runs in slices to check the flag).
    static bool installed();
    // The signal received since install(), or 0.
    static int received();
    // The exit code for a run that received `sig`: 128 + sig.
    static int exit_code(int sig) { return 128 + sig; }
    // Forgets a received signal (tests).
    static void clear();
};

}  // namespace trainvp
