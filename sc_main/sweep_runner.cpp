#include "sc_main/sweep_runner.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <ostream>
#include <thread>
#include <vector>

#include "core/error.h"
#include "kit/run_interrupt.h"
#include "sc_main/run_progress.h"
#include "traces/atomic_file.h"

extern char** environ;

namespace trainvp {

namespace fs = std::filesystem;

namespace {

// Starts `argv` with stdout to /dev/null and stderr to `err_file`.
pid_t start(const std::vector<std::string>& argv, const std::string& err_file) {
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, err_file.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    pid_t pid = 0;
    const int rc = posix_spawn(&pid, argv[0].c_str(), &fa, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) {
        throw sim_error("cannot start '" + argv[0] + "': " + std::strerror(rc));
    }
    return pid;
}

// The code a POSIX shell reports in $? (128 + signal for a killed process), so that a local
// sweep and a job list run by a shell record the same.
int shell_status(int status) {
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return 255;
}

}  // namespace

std::string sweep_runner::line(std::size_t done, std::size_t total, std::size_t nonzero,
                               double elapsed, bool final) {
    std::string s = progress_bar(total ? double(done) / double(total) : 1.0, 20) + " " +
                    std::to_string(done) + "/" + std::to_string(total) + " points";
    if (nonzero) s += " (" + std::to_string(nonzero) + " failed)";
    s += ", elapsed " + format_wall(elapsed);
    if (done > 0 && elapsed > 0) {
        char rate[48];
        std::snprintf(rate, sizeof rate, ", %.3g points/min", 60.0 * double(done) / elapsed);
        s += rate;
    }
    if (!final) {
        s += ", ETA " + (done > 0 && done < total
                             ? format_wall(elapsed / double(done) * double(total - done))
                             : std::string("--"));
    }
    return s;
}

void sweep_runner::show(std::size_t done, std::size_t total, std::size_t nonzero, double elapsed,
                        bool final) const {
    if (!m_progress) return;
    m_out << "\r\033[Ksweep: " << line(done, total, nonzero, elapsed, final);
    if (final) m_out << "\n";
    m_out.flush();
}

sweep_runner::outcome sweep_runner::run() {
    outcome o;
    std::vector<const sweep_point*> todo;
    for (const auto& p : m_plan.points()) {
        if (m_plan.has_result(p)) {
            ++o.skipped;
        } else {
            todo.push_back(&p);
        }
    }
    const auto t0 = std::chrono::steady_clock::now();
    auto elapsed = [&] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    };
    std::map<pid_t, const sweep_point*> running;
    std::size_t next = 0;
    auto last_show = -1.0;
    int forwarded = 0;  // the stop signal passed on to the running points
    while (next < todo.size() || !running.empty()) {
        if (const int sig = run_interrupt::received(); sig != 0 && forwarded == 0) {
            // Stop: no new point, and the running ones stop cleanly (exit 128 + sig, which
            // is not a result: a rerun runs them again).
            next = todo.size();
            for (const auto& [pid, p] : running) ::kill(pid, sig);
            forwarded = sig;
        }
        while (next < todo.size() && running.size() < m_jobs) {
            const sweep_point& p = *todo[next++];
            const std::string dir = m_plan.point_dir(p);
            // A fresh folder: nothing of an interrupted earlier attempt can be read as this
            // one's result.
            std::error_code ec;
            fs::remove_all(dir, ec);
            fs::create_directories(dir, ec);
            running.emplace(start(m_plan.run_argv(p, m_binary),
                                  (fs::path(dir) / sweep_plan::k_err_file).string()),
                            &p);
        }
        int status = 0;
        // Polled, so that a stop signal is seen while points run.
        const pid_t pid = waitpid(-1, &status, WNOHANG);
        if (pid > 0) {
            auto it = running.find(pid);
            if (it == running.end()) continue;  // not one of ours
            const int code = shell_status(status);
            write_file_atomically(
                (fs::path(m_plan.point_dir(*it->second)) / sweep_plan::k_exit_file).string(),
                std::to_string(code) + "\n");
            running.erase(it);
            ++o.ran;
            if (code != 0) ++o.nonzero;
            show(o.ran, todo.size(), o.nonzero, elapsed(), false);
            continue;
        }
        if (pid < 0 && errno != EINTR) {
            throw sim_error(std::string("waiting for the sweep's points: ") + std::strerror(errno));
        }
        // On a terminal, refresh the line twice a second.
        if (m_progress && elapsed() - last_show >= 0.5) {
            last_show = elapsed();
            show(o.ran, todo.size(), o.nonzero, elapsed(), false);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    show(o.ran, todo.size(), o.nonzero, elapsed(), true);
    return o;
}

}  // namespace trainvp
