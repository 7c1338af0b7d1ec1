#include "kit/run_interrupt.h"

#include <csignal>

namespace trainvp {

namespace {
volatile std::sig_atomic_t g_received = 0;
bool g_installed = false;

extern "C" void on_stop_signal(int sig) { g_received = sig; }
}  // namespace

void run_interrupt::install() {
    struct sigaction sa {};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    // A second signal finds the default action: the process ends at once (outputs are written
    // atomically, so the files already there stay whole).
    sa.sa_flags = SA_RESETHAND | SA_RESTART;
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
    g_installed = true;
}

bool run_interrupt::installed() { return g_installed; }

int run_interrupt::received() { return static_cast<int>(g_received); }

void run_interrupt::clear() { g_received = 0; }

}  // namespace trainvp
