// Fuzz target: arbitrary bytes as a config file through the YAML parser, includes-free loading
// and expansion against the real IP registry, and the units parser; a config that loads is then
// elaborated (blocks built, sockets bound and checked, workloads handed out: the rest of the
// `trainvp check` path) in a forked child.  Any input must end in a result or an input_error:
// never a crash, a hang, an out-of-bounds read or another exception.
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/config_node.h"
#include "core/units.h"
#include "kit/registry.h"
#include "platform/platform_loader.h"
#include "platform/simulation.h"

namespace {

// SystemC elaborates once per process, and libFuzzer runs every input in one process: the
// elaboration runs in a child.  Its coverage does not reach libFuzzer (the child's counters
// are its own), but a crash, a sanitizer report or an exception other than input_error kills
// the child with a signal or exit code 3, and the parent then aborts so that libFuzzer keeps
// the input as a crash.  A child still busy after 5 s (a valid but large platform) is stopped
// by its alarm and not counted: elaboration time is not what this target looks for.
void elaborate_in_child(trainvp::platform_desc d) {
    const pid_t pid = fork();
    if (pid < 0) return;  // no process to spare: skip this input's elaboration
    if (pid == 0) {
        alarm(5);
        int code = 0;
        try {
            trainvp::simulation sim(std::move(d), trainvp::registry::global());
            sim.elaborate();
        } catch (const trainvp::input_error&) {
        } catch (...) {
            code = 3;
        }
        _exit(code);  // no destructors, no leak check: the child's state dies with it
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) return;
    }
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM) return;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) std::abort();
}

// Platforms larger than this are loaded but neither written out nor elaborated.
constexpr std::size_t k_most_blocks = 2048;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    for (auto f : {trainvp::units::family::NUMBER, trainvp::units::family::TIME,
                   trainvp::units::family::SIZE, trainvp::units::family::BANDWIDTH,
                   trainvp::units::family::FREQUENCY, trainvp::units::family::COMPUTE}) {
        std::string why;
        (void)trainvp::units::parse(text.substr(0, 64), f, why);
    }
    try {
        trainvp::config_node doc = trainvp::config_node::parse(text, "fuzz.yaml");
        if (doc.is_nil()) return 0;
        trainvp::platform_loader loader(trainvp::registry::global());
        trainvp::platform_desc d = loader.load_document(doc, "fuzz.yaml");
        // A platform of thousands of blocks is legitimate and slow to build (under ASan ~100k
        // memories took over libFuzzer's 10 s): not what this target looks for.
        if (d.instances.size() > k_most_blocks) return 0;
        (void)trainvp::resolved_yaml(d, trainvp::registry::global());
        elaborate_in_child(std::move(d));
    } catch (const trainvp::input_error&) {
    }
    return 0;
}
