// libsystemc.so owns main(); the command line starts here.
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include <systemc>

#include "kit/registry.h"
#include "platform/allocator_tuning.h"
#include "sc_main/trainvp_cli.h"

namespace {
// libsystemc prints its banner from its own main(), before sc_main; a static initialiser runs
// earlier still.  trainvp's output starts with its own line instead.
const bool g_quiet_banner = [] {
    return setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0) == 0;
}();
}  // namespace

int sc_main(int argc, char* argv[]) {
    trainvp::tune_allocator();
    std::vector<std::string> args(argv + 1, argv + argc);
    trainvp::trainvp_cli cli(trainvp::registry::global(), std::cout, std::cerr);
    return cli.main(args);
}
