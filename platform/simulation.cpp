#include "platform/simulation.h"

#include <sysc/tracing/sc_tracing_ids.h>
#include <tlm>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <sstream>

#if defined(__SANITIZE_ADDRESS__)
#define TRAINVP_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TRAINVP_ASAN 1
#endif
#endif
#ifdef TRAINVP_ASAN
#include <pthread.h>
#include <sanitizer/common_interface_defs.h>
#endif

#include "core/did_you_mean.h"
#include "core/param_decl.h"
#include "core/params.h"
#include "core/units.h"
#include "kit/run_interrupt.h"
#include "kit/sim_time.h"
#include "platform/binder.h"
#include "platform/block_index.h"
#include "platform/memory_estimate.h"
#include "platform/peer_index.h"
#include "platform/platform_loader.h"
#include "platform/run_memory_estimate.h"
#include "platform/workload_tally.h"
#include "traces/atomic_file.h"
#include "traces/signal_glob.h"
#include "traces/stats_report.h"
#include "traces/traced_level.h"
#include "workloads/drivers/hand_out.h"
#include "workloads/drivers/workload_sink.h"
#include "workloads/drivers/workload_units.h"

namespace trainvp {

namespace {

// SystemC's tracing warnings that mean waves.vcd lost something (a signal not traced, value
// changes dropped, the file not written).  SystemC prints them and goes on; trainvp keeps them
// and fails the run with them once the file is closed (simulation::run), so a VCD that looks
// complete is complete.  The handler is process-wide, as SystemC's is.
std::vector<std::string>& vcd_losses() {
    static std::vector<std::string> losses;
    return losses;
}

bool loses_vcd_output(const char* msg_type) {
    for (const char* id :
         {sc_core::SC_ID_TRACING_OBJECT_IGNORED_, sc_core::SC_ID_TRACING_VCD_TIME_RESOLUTION_,
          sc_core::SC_ID_TRACING_REVERSED_TIME_, sc_core::SC_ID_TRACING_CLOSE_EMPTY_FILE_,
          sc_core::SC_ID_TRACING_ALREADY_INITIALIZED_}) {
        if (msg_type != nullptr && std::string(msg_type) == id) return true;
    }
    return false;
}

// The `iterations` key of the workload that sets the most of them (workload.training,
// workload.collective[k]), or none: the knob that shortens a run.
struct iterations_key {
    const config_node* node = nullptr;
    std::string key;
    double value = 0;
};

void find_iterations(const config_node& n, const std::string& key, int depth,
                     iterations_key& best) {
    if (depth > 3) return;
    if (n.is_map()) {
        for (const auto& e : n.entries()) {
            const std::string k = key + "." + e.key;
            if (e.key == "iterations" && e.value.is_scalar()) {
                const auto v = units::parse_number(e.value.scalar());
                if (v && *v > best.value) best = {&e.value, k, *v};
            } else {
                find_iterations(e.value, k, depth + 1, best);
            }
        }
    } else if (n.is_seq()) {
        for (std::size_t i = 0; i < n.items().size(); ++i) {
            find_iterations(n.items()[i], key + "[" + std::to_string(i) + "]", depth + 1, best);
        }
    }
}

// A run whose recorded spans, op records and op windows would not fit is refused once the
// workload is handed out, before the kernel starts (run_memory_estimate.h), naming the
// estimate's parts and the knobs that reduce it, at the iterations key when there is one.
void check_run_memory(const run_memory_estimate& est, const platform_desc& desc) {
    const bool machine = desc.settings.memory_limit.bytes == 0;
    const std::uint64_t limit =
        machine ? memory_estimate::available_memory() : desc.settings.memory_limit.bytes;
    if (limit == 0 || est.bytes() <= limit) return;
    iterations_key it;
    find_iterations(desc.workload, "workload", 0, it);
    auto size = [](std::uint64_t b) { return units::format_size(static_cast<double>(b)); };
    // The knobs, largest saving first.
    std::vector<std::pair<std::uint64_t, std::string>> knobs;
    if (est.span_bytes() > 0) {
        knobs.emplace_back(est.span_bytes(),
                           "simulation.timeline: false (saves " + size(est.span_bytes()) + ")");
    }
    if (est.breakdown_bytes() > 0) {
        knobs.emplace_back(est.breakdown_bytes(), "simulation.breakdown: false (saves " +
                                                      size(est.breakdown_bytes()) + ")");
    }
    std::stable_sort(knobs.begin(), knobs.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    if (it.node != nullptr)
        knobs.emplace_back(0, "fewer " + it.key + " (" + it.node->scalar() + ")");
    std::string reduce = knobs.empty() ? "; reduce the platform or its ops" : "; reduce it with ";
    for (std::size_t k = 0; k < knobs.size(); ++k) reduce += (k == 0 ? "" : ", ") + knobs[k].second;
    // Located at the iterations key; else at the workload; else (no workload: the blocks are
    // the estimate) at the file.
    const source_loc where = it.node != nullptr        ? it.node->loc()
                             : !desc.workload.is_nil() ? desc.workload.loc()
                                                       : source_loc{desc.config_path, 0, 0};
    const std::string key = it.node != nullptr        ? it.key
                            : !desc.workload.is_nil() ? "workload"
                                                      : "components";
    throw input_error(where, key,
                      "the run would need about " + size(est.bytes()) + " (" + est.parts() +
                          "), more than simulation.memory_limit (" + size(limit) +
                          (machine ? ": the machine's available memory" : "") + ")" + reduce +
                          ", or raise simulation.memory_limit if the machine has the memory");
}

void report_handler(const sc_core::sc_report& rep, const sc_core::sc_actions& actions) {
    if (rep.get_severity() == sc_core::SC_WARNING && loses_vcd_output(rep.get_msg_type())) {
        std::string what = rep.get_msg_type();
        if (rep.get_msg() != nullptr && *rep.get_msg() != '\0')
            what += ": " + std::string(rep.get_msg());
        vcd_losses().push_back(what);
        return;
    }
    sc_core::sc_report_handler::default_handler(rep, actions);
}

// SystemC 2.3.4 (Debian's) tells AddressSanitizer about its coroutine stacks when a thread
// process yields, but not when one ends (sc_cor_pkg_qt::abort switches stacks unannounced),
// and its main coroutine has no stack of its own (a switch back to it announces [0, 0)).  So
// when sc_start returns, AddressSanitizer may believe the main thread still runs on the
// 256 KiB stack of the last thread process that ended.  Measured with LSAN_OPTIONS=log_threads=1
// on smartnic_model_on_platform: at exit "Stack at 0x7f9a2ac30000-0x7f9a2ac70000 (SP =
// 0x7ffe06f573d8) ... stack pointer not in stack range ... Skipped 41 guard page(s)": SystemC
// has unmapped that stack by then, LeakSanitizer skips the unmapped pages at its start and
// scans from the first mapped one, so it reads whatever was mapped there since and faults
// ("Tracer caught signal 11") where the range has a hole again: 1-2 of the 60 cases, as
// the memory layout falls.  (SystemC 3.0 announces abort's switch and records the main
// stack.)  Called after every sc_start, on the main stack: announces a switch to the main
// thread's own stack (pthread's bounds), keeping its fake stack; at exit LeakSanitizer then
// scans "Stack at 0x7ffc58ba9000-0x7ffc593a7000 (SP = 0x7ffc593a67b8)", the real one.
void restore_main_stack_for_sanitizers() {
#ifdef TRAINVP_ASAN
    static const std::pair<void*, std::size_t> main_stack = [] {
        std::pair<void*, std::size_t> st{nullptr, 0};
        pthread_attr_t attr;
        if (pthread_getattr_np(pthread_self(), &attr) == 0) {
            pthread_attr_getstack(&attr, &st.first, &st.second);
            pthread_attr_destroy(&attr);
        }
        return st;
    }();
    if (main_stack.first == nullptr) return;
    void* fake = nullptr;
    __sanitizer_start_switch_fiber(&fake, main_stack.first, main_stack.second);
    __sanitizer_finish_switch_fiber(fake, nullptr, nullptr);
#endif
}

// sc_start, then the main thread's stack as AddressSanitizer sees it put right.
void run_kernel(const sc_core::sc_time& t,
                sc_core::sc_starvation_policy p = sc_core::SC_RUN_TO_TIME) {
    sc_core::sc_start(t, p);
    restore_main_stack_for_sanitizers();
}

void run_kernel() {
    sc_core::sc_start();
    restore_main_stack_for_sanitizers();
}

}  // namespace

const char* run_status_name(run_status s) {
    switch (s) {
        case run_status::FINISHED:
            return "finished";
        case run_status::MAX_TIME:
            return "max_time";
        case run_status::STALLED:
            return "stalled";
        case run_status::FAILED:
            return "failed";
        case run_status::IDLE:
            return "idle";
        case run_status::INTERRUPTED:
            return "interrupted";
    }
    return "?";
}

std::string sc_name_of(const std::string& segment) {
    std::string out;
    for (char c : segment) {
        if (c == '[') {
            out += '_';
        } else if (c != ']') {
            out += c;
        }
    }
    return out;
}

// A group (template instance) as an sc_module, so SystemC names and VCD scopes follow the
// config's hierarchy.  Children are built in its constructor, where SystemC puts them under it.
class simulation::group : public sc_core::sc_module {
public:
    group(const sc_core::sc_module_name& n, const std::function<void()>& build_children)
        : sc_core::sc_module(n) {
        build_children();
    }
};

struct simulation::tree_node {
    std::string segment;
    const instance_desc* leaf = nullptr;
    std::vector<tree_node> children;
};

// Ends the run when every driver finished; reports a stall when blocks hold work and nothing
// progresses for stall_timeout; resets statistics after warm-up.
class simulation::controller : public sc_core::sc_module {
public:
    SC_HAS_PROCESS(controller);
    controller(const sc_core::sc_module_name& n, simulation& sim) : sc_module(n), m_sim(sim) {
        for (ip_module* b : sim.m_blocks) {
            if (b->is_driver()) m_drivers.push_back(b);
        }
        if (!m_drivers.empty()) SC_THREAD(watch);
        if (sim.m_ctx.settings().warmup.ps > 0) SC_THREAD(warmup);
    }

    run_status status = run_status::IDLE;
    std::string stall_report;

private:
    bool all_finished() const {
        return std::all_of(m_drivers.begin(), m_drivers.end(),
                           [](const ip_module* d) { return d->finished(); });
    }

    // Wakes when a driver finishes or when stall_timeout has passed since the last progress
    // (or the end of the last reservation a block announced).
    void watch() {
        sim_context& ctx = m_sim.m_ctx;
        const sc_core::sc_time timeout(static_cast<double>(ctx.settings().stall_timeout.ps),
                                       sc_core::SC_PS);
        while (true) {
            if (all_finished()) {
                status = run_status::FINISHED;
                sc_core::sc_stop();
                return;
            }
            const sc_core::sc_time now = sc_core::sc_time_stamp();
            const sc_core::sc_time deadline = ctx.last_progress() + timeout;
            if (now >= deadline) {
                status = run_status::STALLED;
                stall_report = report(ctx.last_progress());
                sc_core::sc_stop();
                return;
            }
            wait(deadline - now, ctx.driver_done());
        }
    }

    std::string report(const sc_core::sc_time& since) const {
        std::ostringstream os;
        os << "stall: no progress since " << since.to_string() << " (for "
           << (sc_core::sc_time_stamp() - since).to_string()
           << ", stall_timeout) while blocks hold work:";
        int n = 0;
        for (ip_module* b : m_sim.m_blocks) {
            std::string w = b->pending_work();
            if (b->is_driver() && !b->finished() && w.empty()) w = "has not finished";
            if (w.empty()) continue;
            os << "\n  " << b->path() << " (" << b->type().name << "): " << w;
            ++n;
        }
        if (n == 0) os << "\n  (no block reports pending work)";
        return os.str();
    }

    void warmup() {
        wait(ps_time(m_sim.m_ctx.settings().warmup.ps));
        for (ip_module* b : m_sim.m_blocks) {
            for (const auto& s : b->type().stats) s.reset(*b);
        }
    }

    simulation& m_sim;
    std::vector<ip_module*> m_drivers;
};

simulation::simulation(platform_desc desc, const registry& reg)
    : m_desc(std::move(desc)), m_registry(reg), m_ctx(m_desc.settings) {}

simulation::~simulation() {
    if (sim_context::current() == &m_ctx) sim_context::set_current(nullptr);
    // Blocks go last-created first: SystemC's port and export registries look a removed socket
    // up from their newest entry, so any other order costs a search per socket (quadratic in
    // the block count: ~1e9 instructions for a 1024-node platform).  Groups (the blocks'
    // parents, holding no sockets) go after all blocks, as before.
    for (auto it = m_owned.rbegin(); it != m_owned.rend(); ++it) {
        if (dynamic_cast<ip_module*>(it->get()) != nullptr) it->reset();
    }
}

ip_module* simulation::block(const std::string& path) const {
    auto it = m_by_path.find(path);
    return it == m_by_path.end() ? nullptr : it->second;
}

void simulation::build(const tree_node& node) {
    for (const auto& child : node.children) {
        const std::string name = sc_name_of(child.segment);
        if (child.leaf) {
            const instance_desc& d = *child.leaf;
            const type_info* t = m_registry.find(d.type);
            params p(d.path, d.params);
            p.set_where(d.loc);
            p.set_type(t, &t->params);
            std::unique_ptr<ip_module> m = t->create(sc_core::sc_module_name(name.c_str()), p);
            m_blocks.push_back(m.get());
            m_by_path.emplace(d.path, m.get());
            m_owned.push_back(std::move(m));
        } else {
            auto g = std::make_unique<group>(sc_core::sc_module_name(name.c_str()),
                                             [this, &child] { build(child); });
            m_owned.push_back(std::move(g));
        }
    }
}

void simulation::elaborate() {
    sim_context::set_current(&m_ctx);
    // Every block builds sc_time from integer picoseconds (kit/sim_time.h).
    if (sc_core::sc_get_time_resolution() != sc_core::sc_time(1, sc_core::SC_PS)) {
        throw std::logic_error("trainvp needs SystemC's time resolution at 1 ps");
    }
    // sc_stop is how a run ends; SystemC's note about it is noise.
    // SystemC's infos (sc_stop called, VCD timescale set) are noise in trainvp's output.
    sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
    sc_core::sc_report_handler::set_handler(&report_handler);
    tlm::tlm_global_quantum::instance().set(ps_time(m_ctx.settings().quantum.ps));
    m_ctx.wakes().spawn();

    // The instance paths form a tree; build it in config order.
    tree_node root;
    for (const auto& inst : m_desc.instances) {
        tree_node* cur = &root;
        std::size_t start = 0;
        while (true) {
            const std::size_t dot = inst.path.find('.', start);
            const std::string seg = inst.path.substr(start, dot - start);
            auto it = std::find_if(cur->children.begin(), cur->children.end(),
                                   [&](const tree_node& t) { return t.segment == seg; });
            if (it == cur->children.end()) {
                cur->children.push_back(tree_node{seg, nullptr, {}});
                it = cur->children.end() - 1;
            }
            cur = &*it;
            if (dot == std::string::npos) break;
            start = dot + 1;
        }
        cur->leaf = &inst;
    }
    build(root);
    // m_blocks was filled depth-first; keep config order for outputs.
    m_blocks.clear();
    for (const auto& inst : m_desc.instances) m_blocks.push_back(m_by_path.at(inst.path));

    binder b(m_by_path, m_desc.instances);
    b.bind_all(m_desc.connections);
    b.check_unbound();
    m_warnings = b.warnings();
    hand_out_workload();
    // The validation phase: every block checks what it needs of its peers, so that nothing
    // `check` accepts fails at run time for a reason the config already showed.
    const peer_index peers(m_by_path, m_desc);
    for (const ip_module* blk : m_blocks) blk->validate_peers(peers);
    peers.check_messages(m_blocks);
    m_controller = std::make_unique<controller>("trainvp_controller", *this);
}

// Each entry of `workload:` goes to its registered section (workloads/drivers/), which sees the
// blocks only through the block_index.
void simulation::hand_out_workload() {
    const block_index platform(m_by_path, m_desc);
    const workload_tally tally(platform);
    m_iterations = drivers::hand_out_workload(m_desc.workload, tally, m_desc.settings.seed,
                                              m_ctx.spans().enabled(), &m_measures);
    check_run_memory(run_memory_estimate(m_blocks.size(), tally.hosts(), m_desc.settings.timeline,
                                         m_desc.settings.breakdown),
                     m_desc);
}

void simulation::trace_to(const std::string& file_base, const vcd_options& opt) {
    // The selection is checked before the file is made.
    const signal_glob globs(opt.signals);
    std::vector<std::pair<std::string, traced_level*>> chosen;
    std::string example;
    for (ip_module* b : m_blocks) {
        for (const auto& s : b->type().signals) {
            s.each(*b, [&](const std::string& name, traced_level& lvl) {
                const std::string full = b->path() + "." + name;
                if (example.empty()) example = full;
                if (globs.matches(full)) chosen.emplace_back(full, &lvl);
            });
        }
    }
    if (!globs.unmatched().empty()) {
        throw input_error(source_loc{"command line", 0, 0}, "--vcd-signals",
                          "'" + globs.unmatched().front() +
                              "' matches no signal (names look like '" + example +
                              "'; `*` matches any characters, brackets are literal)");
    }
    if (chosen.empty()) {
        // SystemC would write no file (and the run would fail reading it back).
        throw input_error(source_loc{"command line", 0, 0}, "--vcd",
                          "no block of this platform declares a VCD signal (`trainvp describe "
                          "TYPE` lists a type's signals)");
    }
    m_vcd_base = file_base;
    m_vcd = sc_core::sc_create_vcd_trace_file(file_base.c_str());
    if (m_vcd == nullptr) throw sim_error("cannot create VCD file '" + file_base + ".vcd'");
    m_vcd->set_time_unit(1, sc_core::SC_PS);
    m_vcd_limits = std::make_unique<vcd_limits>();
    m_vcd_limits->from_ps = opt.from_ps;
    m_vcd_limits->to_ps = opt.to_ps;
    m_vcd_limits->max_bytes = opt.max_bytes;
    m_vcd_limits->file = file_base + ".vcd";
    // SystemC turns brackets in traced names into parentheses (with a warning); it is given
    // the parentheses, and write_outputs puts the config's brackets back into the header's
    // scope lines (same length, in place): `$scope module node[0] $end`.
    for (auto& [name, lvl] : chosen) {
        std::string safe = name;
        for (char& c : safe) {
            if (c == '[') c = '(';
            if (c == ']') c = ')';
        }
        lvl->enable(m_vcd, safe, m_vcd_limits.get());
    }
    m_traced = chosen.size();
}

// sc_start in slices of simulated time, calling the hook between them.  The result equals one
// sc_start: the kernel keeps its event queues and runnable processes across calls, each slice
// stops on starvation without advancing time (as sc_start() does), and only the slice that
// reaches max_time runs to it (as sc_start(max_time) does).  A slice covers at least the next
// event and adapts so that it takes about a tenth of the refresh period in wall time.
void simulation::run_in_slices(std::uint64_t max_ps, const run_progress_hook& hook) {
    using clock = std::chrono::steady_clock;
    const auto wall0 = clock::now();
    auto wall = [&] { return std::chrono::duration<double>(clock::now() - wall0).count(); };
    const sc_core::sc_time end = ps_time(max_ps);
    sc_core::sc_time slice(1, sc_core::SC_US);
    double next_report = hook.period_s;
    auto stopped = [] {
        return sc_core::sc_get_status() == sc_core::SC_STOPPED ||
               sc_core::sc_end_of_simulation_invoked();
    };
    bool first = true;
    while (true) {
        if (run_interrupt::received() != 0) return;
        const sc_core::sc_time now = sc_core::sc_time_stamp();
        if (!first) {
            if (stopped()) return;
            if (!sc_core::sc_pending_activity()) {
                // Starved: an sc_start(max_time) would still have advanced to max_time.
                if (max_ps > 0 && now < end) run_kernel(end - now);
                return;
            }
            if (max_ps > 0 && now >= end) return;
        }
        sc_core::sc_time step = slice;
        if (!first && !sc_core::sc_pending_activity_at_current_time()) {
            step = std::max(step, sc_core::sc_time_to_pending_activity());
        }
        const double w0 = wall();
        if (max_ps > 0 && now + step >= end) {
            run_kernel(end - now);
        } else {
            run_kernel(step, sc_core::SC_EXIT_ON_STARVATION);
        }
        first = false;
        const double took = wall() - w0;
        const double target = hook.period_s / 10;
        if (took < target / 2 && slice < sc_core::sc_time(1000, sc_core::SC_SEC)) slice = slice * 2;
        if (took > target * 2 && slice > sc_core::sc_time(1, sc_core::SC_NS)) slice = slice / 2;
        if (wall() >= next_report) {
            next_report = wall() + hook.period_s;
            if (hook.fn) hook.fn(sc_core::sc_time_stamp(), wall());
        }
    }
}

// Every declared signal's level counts its busy() intervals, unless there are too many to keep
// (a 1024-node platform): the bottlenecks are then left out, with a note.
void simulation::account_busy() {
    std::size_t n = 0;
    for (ip_module* b : m_blocks) {
        for (const auto& s : b->type().signals) {
            s.each(*b, [&](const std::string&, traced_level&) { ++n; });
        }
    }
    if (n > k_max_accounted) return;
    const bool timeline = m_ctx.spans().enabled();
    for (ip_module* b : m_blocks) {
        for (const auto& s : b->type().signals) {
            s.each(*b, [&](const std::string& name, traced_level& level) {
                m_busy.push_back({b, name, std::make_unique<busy_histogram>()});
                level.account_busy(m_busy.back().busy.get());
                if (timeline && !level.is_flag()) {
                    m_levels.push_back({b, name, std::make_unique<level_series>()});
                    level.record_levels(m_levels.back().levels.get());
                }
            });
        }
    }
}

void simulation::add_counter_tracks(std::uint64_t end_ps) {
    timeline& tl = m_ctx.spans();
    if (!tl.enabled() || end_ps == 0) return;
    auto process_of = [](const std::string& path) { return path.substr(0, path.find('.')); };
    // Link utilisation per bucket of a grid of at most 256 buckets over the run.
    std::uint64_t width = busy_histogram::k_first_width_ps;
    while (width * 256 < end_ps) width *= 2;
    for (const auto& a : m_busy) {
        const std::string& type = a.block->type().name;
        if (type.size() < 5 || type.compare(type.size() - 5, 5, ".link") != 0) continue;
        std::uint64_t w = std::max(width, a.busy->width_ps());
        const std::vector<double> busy = a.busy->at_width(w);
        const std::size_t n = static_cast<std::size_t>((end_ps + w - 1) / w);
        std::vector<double> util(std::min(n, busy.size()));
        bool any = false;
        for (std::size_t i = 0; i < util.size(); ++i) {
            util[i] = busy[i] / static_cast<double>(w);
            any = any || util[i] > 0;
        }
        if (!any) continue;
        tl.counter(process_of(a.block->path()), a.block->path() + "." + a.signal + " utilisation",
                   0, w, util);
    }
    // Queue depths: every change, as a step function.
    for (const auto& l : m_levels) {
        if (l.levels->full || l.levels->changes.empty()) continue;
        auto changes = l.levels->changes;
        std::stable_sort(changes.begin(), changes.end(),
                         [](const auto& a, const auto& b) { return a.first < b.first; });
        std::vector<std::pair<std::uint64_t, double>> steps;
        std::int64_t level = 0;
        for (const auto& [at, d] : changes) {
            level += d;
            if (!steps.empty() && steps.back().first == at) {
                steps.back().second = static_cast<double>(level);  // same time: the last value
            } else {
                steps.emplace_back(at, static_cast<double>(level));
            }
        }
        tl.counter_steps(process_of(l.block->path()), l.block->path() + "." + l.signal, steps);
    }
}

std::vector<std::string> simulation::phase_bottlenecks(const std::vector<workloads::host_run>& runs,
                                                       std::uint64_t end_ps) const {
    if (end_ps == 0) return {};
    if (m_busy.empty()) {
        return {"not computed: more than " + std::to_string(k_max_accounted) +
                " busy flags (a large platform; per-block busy time is in stats.json)"};
    }
    // One grid for all: the widest histogram's, wide enough for the run.
    std::uint64_t width = busy_histogram::k_first_width_ps;
    while (width * busy_histogram::k_buckets < end_ps) width *= 2;
    for (const auto& a : m_busy) width = std::max(width, a.busy->width_ps());
    // The phases: communication while any host has a communication op in flight, compute
    // while one computes and none communicates.  A resource's busy time in a phase is, per
    // bucket of the grid, its busy time there times the phase's share of the bucket (exact
    // when a bucket lies in one phase; the grid is 1/1024 of the run or finer).
    using interval = std::pair<std::uint64_t, std::uint64_t>;
    std::vector<interval> comm, compute;
    for (const auto& h : runs) {
        for (const auto& op : h.ops) {
            if (op.end_ps <= op.start_ps) continue;
            switch (op.phase) {
                case ops::op_phase::COMM:
                case ops::op_phase::COMPRESSION:
                    comm.emplace_back(op.start_ps, op.end_ps);
                    break;
                case ops::op_phase::FORWARD:
                case ops::op_phase::BACKWARD:
                case ops::op_phase::COMPUTE:
                case ops::op_phase::COPY:
                case ops::op_phase::SUM:
                case ops::op_phase::UPDATE:
                    compute.emplace_back(op.start_ps, op.end_ps);
                    break;
                default:
                    break;
            }
        }
    }
    auto merge = [](std::vector<interval>& v) {
        std::sort(v.begin(), v.end());
        std::vector<interval> out;
        for (const auto& i : v) {
            if (!out.empty() && i.first <= out.back().second) {
                out.back().second = std::max(out.back().second, i.second);
            } else {
                out.push_back(i);
            }
        }
        v = std::move(out);
    };
    merge(comm);
    merge(compute);
    // compute minus comm
    std::vector<interval> compute_only;
    std::size_t c = 0;
    for (auto [s, e] : compute) {
        while (c < comm.size() && comm[c].second <= s) ++c;
        std::size_t k = c;
        while (s < e) {
            if (k >= comm.size() || comm[k].first >= e) {
                compute_only.emplace_back(s, e);
                break;
            }
            if (comm[k].first > s) compute_only.emplace_back(s, comm[k].first);
            s = std::max(s, comm[k].second);
            ++k;
        }
    }
    auto grid = [&](const std::vector<interval>& v, double& total) {
        std::vector<double> g(busy_histogram::k_buckets, 0.0);
        total = 0.0;
        for (auto [s, e] : v) {
            total += static_cast<double>(e - s);
            std::uint64_t t = s;
            while (t < e) {
                const std::size_t b = static_cast<std::size_t>(t / width);
                if (b >= g.size()) break;
                const std::uint64_t upto = std::min<std::uint64_t>(e, (b + 1) * width);
                g[b] += static_cast<double>(upto - t);
                t = upto;
            }
        }
        return g;
    };
    std::vector<std::string> out;
    const std::pair<const char*, const std::vector<interval>*> phases[] = {
        {"compute", &compute_only}, {"communication", &comm}};
    for (const auto& [phase_name, intervals] : phases) {
        double phase_ps = 0.0;
        const std::vector<double> in_phase = grid(*intervals, phase_ps);
        if (phase_ps <= 0.0) continue;
        // Busy ps in the phase: each bucket's busy time times the phase's share of the bucket.
        struct best {
            std::string kind, path;
            double util = 0.0;
        };
        std::vector<best> kinds;
        const bool communication = intervals == &comm;
        for (const auto& a : m_busy) {
            // A host's units hold the communication ops that define the phase: busy by
            // definition then, they would hide the network's resources.
            if (communication && a.block->is_driver()) continue;
            const std::vector<double> busy = a.busy->at_width(width);
            double x = 0.0;
            for (std::size_t b = 0; b < busy.size(); ++b) {
                x += busy[b] * in_phase[b] / static_cast<double>(width);
            }
            const double util = x / phase_ps;
            const std::string kind = a.block->type().name + " " + a.signal;
            auto it = std::find_if(kinds.begin(), kinds.end(),
                                   [&](const best& k) { return k.kind == kind; });
            if (it == kinds.end()) {
                kinds.push_back({kind, a.block->path() + " " + a.signal, util});
            } else if (util > it->util) {
                it->path = a.block->path() + " " + a.signal;
                it->util = util;
            }
        }
        std::stable_sort(kinds.begin(), kinds.end(),
                         [](const best& x, const best& y) { return x.util > y.util; });
        char head[96];
        std::snprintf(head, sizeof head, "%s (%.1f %% of the run): ", phase_name,
                      100.0 * phase_ps / static_cast<double>(end_ps));
        std::string line = head;
        std::size_t shown = 0;
        for (const auto& k : kinds) {
            if (shown == 4 || k.util < 0.005) break;
            char u[32];
            std::snprintf(u, sizeof u, "%.0f %%", 100.0 * std::min(1.0, k.util));
            line += (shown ? ", " : "") + k.path + " " + u + " busy";
            ++shown;
        }
        if (shown == 0) line += "no resource busier than 0.5 %";
        out.push_back(line);
    }
    return out;
}

run_result simulation::run(const run_progress_hook* hook) {
    run_result r;
    if (m_busy.empty()) account_busy();
    const auto wall0 = std::chrono::steady_clock::now();
    const auto max_ps = m_ctx.settings().max_time.ps;
    if (hook != nullptr && hook->fn) {
        run_in_slices(max_ps, *hook);
    } else if (run_interrupt::installed()) {
        // Slices of about 50 ms of wall time: a stop signal is seen that soon.
        run_in_slices(max_ps, run_progress_hook{});
    } else if (max_ps > 0) {
        run_kernel(ps_time(max_ps));
    } else {
        run_kernel();
    }
    r.wall_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
    // A failure is a result, not an exception: an exception thrown on the main stack after
    // SystemC has switched coroutine stacks leaves AddressSanitizer with stale stack state.
    if (!m_ctx.error().empty()) {
        r.status = run_status::FAILED;
        r.error = m_ctx.error();
    }
    r.end_time = sc_core::sc_time_stamp();
    if (r.status != run_status::FAILED) r.status = m_controller->status;
    // Stopped by SIGINT / SIGTERM before it finished, stalled or failed.
    if (const int sig = run_interrupt::received();
        sig != 0 && (r.status == run_status::IDLE || r.status == run_status::MAX_TIME)) {
        if (sc_core::sc_get_status() != sc_core::SC_STOPPED) sc_core::sc_stop();
        r.status = run_status::INTERRUPTED;
        r.signal = sig;
    }
    r.stall_report = m_controller->stall_report;
    if (r.status == run_status::IDLE) {
        bool drivers = false, done = true;
        for (ip_module* b : m_blocks) {
            if (b->is_driver()) {
                drivers = true;
                done = done && b->finished();
            }
        }
        if (drivers && !done) r.status = run_status::MAX_TIME;
        if (drivers && done) r.status = run_status::FINISHED;
    }
    // A run that stopped early holds reservations for after its end: the blocks compute their
    // statistics over the time that ran, and the report marks them incomplete.
    m_ctx.set_run_complete(r.status == run_status::FINISHED);
    for (ip_module* b : m_blocks) b->end_of_run();
    if (r.status == run_status::FINISHED) {
        audit_log log;
        for (const ip_module* b : m_blocks) b->audit(log);
        audit_fractions(log);
        r.audited = true;
        r.audit_checks = log.checks();
        r.audit_violations = log.violations();
        if (!r.audit_violations.empty()) {
            r.status = run_status::FAILED;
            r.error = "the end-of-run audit found " + std::to_string(r.audit_violations.size()) +
                      " broken invariant" + (r.audit_violations.size() == 1 ? "" : "s") + ": " +
                      join(r.audit_violations, "; ");
        }
    }
    if (r.status == run_status::FINISHED) {
        std::vector<workloads::host_run> runs;
        for (ip_module* b : m_blocks) {
            if (auto* sink = dynamic_cast<workload_sink*>(b)) {
                workloads::host_run hr = sink->ran();
                if (!hr.ops.empty()) runs.push_back(std::move(hr));
            }
            // A block's own units that run ops (noc.interposer's chiplets).
            if (auto* units = dynamic_cast<workload_units*>(b)) {
                for (const workload_units::unit& u : units->units()) {
                    workloads::host_run hr = u.sink->ran();
                    if (!hr.ops.empty()) runs.push_back(std::move(hr));
                }
            }
        }
        if (!runs.empty()) {
            r.breakdown = workloads::critical_path(runs);
            r.has_breakdown = r.breakdown.error.empty();
            r.iterations = m_iterations;
            r.bottlenecks = phase_bottlenecks(runs, r.end_time.value());
            for (const drivers::run_measure& m : m_measures) {
                for (drivers::measured_stat& x : m(runs)) r.measured.push_back(std::move(x));
            }
        }
    }
    add_counter_tracks(r.end_time.value());
    if (m_vcd) {
        sc_core::sc_close_vcd_trace_file(m_vcd);
        m_vcd = nullptr;
        // (An interrupted run may end before SystemC opened the file: write_outputs knows.)
        if (!vcd_losses().empty() && r.status != run_status::FAILED &&
            r.status != run_status::INTERRUPTED) {
            r.status = run_status::FAILED;
            r.error = "waves.vcd is incomplete: SystemC reported " + join(vcd_losses(), "; ");
        }
        if (m_vcd_limits && m_vcd_limits->stopped) {
            // The whole run's file, estimated at the rate the file grew until it stopped (over
            // the part of the window the run covered).
            const vcd_limits& lim = *m_vcd_limits;
            const double end =
                static_cast<double>(std::min<std::uint64_t>(r.end_time.value(), lim.to_ps));
            const double covered =
                static_cast<double>(lim.stopped_at_ps) - static_cast<double>(lim.from_ps);
            std::string whole;
            if (covered > 0 && end > static_cast<double>(lim.stopped_at_ps)) {
                whole = " (the whole " +
                        std::string(lim.from_ps > 0 || lim.to_ps < UINT64_MAX ? "window" : "run") +
                        " would have written about " +
                        units::format_size(static_cast<double>(lim.size_at_stop) *
                                           (end - static_cast<double>(lim.from_ps)) / covered) +
                        ")";
            }
            m_warnings.push_back(
                "waves.vcd stops at " +
                units::format_time(static_cast<double>(lim.stopped_at_ps) * 1e-12) +
                " simulated: it reached " +
                units::format_size(static_cast<double>(lim.size_at_stop)) + ", the --vcd-max-size" +
                whole +
                "; choose signals (--vcd-signals) or a time window (--vcd-window) to see the "
                "rest");
        }
    }
    return r;
}

// Every utilisation is a fraction of the run's time: one above 1 counts time that never ran.
void simulation::audit_fractions(audit_log& log) const {
    visit_stats(
        [&](const ip_module& b, const stat_decl& s, const std::string& name, const void* v) {
            if (s.kind != stat_kind::SCALAR || s.unit != "1") return;
            if (name.find("utilisation") == std::string::npos) return;
            const double x = static_cast<const scalar*>(v)->value();
            char buf[64];
            std::snprintf(buf, sizeof buf, "%s = %.6g", name.c_str(), x);
            log.check(b.path(), "utilisation within [0, 1]", x >= 0.0 && x <= 1.0 + 1e-9, buf);
        });
}

template <typename F>
void simulation::visit_stats(F&& f) const {
    for (ip_module* b : m_blocks) {
        for (const auto& s : b->type().stats) {
            s.each(*b, [&](const std::string& name, const void* v) { f(*b, s, name, v); });
        }
    }
}

namespace {
// What the statistics of a run that did not finish cover.
std::string incomplete_note(const run_result& r) {
    return "incomplete: the run stopped at " + r.end_time.to_string() + " (" +
           run_status_name(r.status) +
           ") before every driver finished; times, counts and utilisations cover the time "
           "that ran";
}

stats_report make_report(const platform_desc& d, const run_result& r) {
    stats_report rep;
    rep.run_fact("config", d.config_path);
    rep.run_fact("seed", static_cast<std::uint64_t>(d.settings.seed));
    rep.run_fact("status", run_status_name(r.status));
    rep.run_fact("sim_time_ps", static_cast<std::uint64_t>(r.end_time.value()));
    if (r.audited) {
        rep.run_fact("audit_checks", static_cast<std::uint64_t>(r.audit_checks));
        rep.run_fact("audit_violations", static_cast<std::uint64_t>(r.audit_violations.size()));
        if (!r.audit_violations.empty()) rep.run_fact("audit", join(r.audit_violations, "; "));
    } else {
        rep.run_fact("audit", "not run (the run did not finish)");
    }
    if (r.status != run_status::FINISHED) {
        rep.run_fact("statistics", incomplete_note(r));
    }
    return rep;
}
}  // namespace

stats_report simulation::report(const run_result& r) const {
    stats_report rep = make_report(m_desc, r);
    if (r.has_breakdown) {
        const double per = 1e-3 / static_cast<double>(r.iterations);  // ps -> ns per iteration
        auto row = [&](const std::string& name, double ns) {
            scalar s;
            s.set(ns);
            rep.add("iteration", "breakdown", name, "ns", s);
        };
        row("time", static_cast<double>(r.breakdown.total_ps) * per);
        for (std::size_t p = 0; p < workloads::k_breakdown_parts; ++p) {
            row(workloads::part_name(static_cast<workloads::breakdown_part>(p)),
                static_cast<double>(r.breakdown.ps[p]) * per);
        }
        counter n;
        n += static_cast<std::uint64_t>(r.iterations);
        rep.add("iteration", "breakdown", "iterations", "1", n);
    }
    for (const drivers::measured_stat& m : r.measured) {
        scalar v;
        v.set(m.value);
        rep.add(m.block, m.type, m.name, m.unit, v);
    }
    visit_stats(
        [&](const ip_module& b, const stat_decl& s, const std::string& name, const void* v) {
            switch (s.kind) {
                case stat_kind::COUNTER:
                    rep.add(b.path(), b.type().name, name, s.unit, *static_cast<const counter*>(v));
                    break;
                case stat_kind::SCALAR:
                    rep.add(b.path(), b.type().name, name, s.unit, *static_cast<const scalar*>(v));
                    break;
                case stat_kind::DISTRIBUTION:
                    rep.add(b.path(), b.type().name, name, s.unit,
                            *static_cast<const distribution*>(v));
                    break;
            }
        });
    return rep;
}

std::string simulation::stats_json(const run_result& r) const { return report(r).json(); }
std::string simulation::stats_csv(const run_result& r) const { return report(r).csv(); }

// SystemC stamps the wall-clock date into the VCD header; the same run must give the same file,
// so the date is overwritten in place (same length, so nothing after it moves).
void simulation::blank_vcd_date(const std::string& path) {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    if (!f) throw sim_error("cannot read back VCD file '" + path + "'");
    std::string head(256, '\0');
    f.read(&head[0], static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<std::size_t>(f.gcount()));
    const std::size_t tag = head.find("$date\n");
    if (tag == std::string::npos) return;
    const std::size_t begin = tag + 6;
    const std::size_t end = head.find('\n', begin);
    if (end == std::string::npos) return;
    std::string blank(end - begin, ' ');
    const std::string text = "(not recorded)";
    blank.replace(0, std::min(text.size(), blank.size()), text.substr(0, blank.size()));
    f.clear();
    f.seekp(static_cast<std::streamoff>(begin));
    f.write(blank.data(), static_cast<std::streamsize>(blank.size()));
}

// The header's scope lines get the config's brackets back (trace_to gave SystemC parentheses
// for them): `$scope module node(0) $end` becomes `$scope module node[0] $end`, in place.
void simulation::restore_vcd_scopes(const std::string& path) {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    if (!f) throw sim_error("cannot read back VCD file '" + path + "'");
    std::string head;
    std::string chunk(1 << 16, '\0');
    std::size_t end = std::string::npos;
    while (end == std::string::npos) {
        f.read(&chunk[0], static_cast<std::streamsize>(chunk.size()));
        const auto got = static_cast<std::size_t>(f.gcount());
        if (got == 0) break;
        head.append(chunk, 0, got);
        end = head.find("$enddefinitions");
    }
    if (end == std::string::npos) return;
    head.resize(end);
    bool changed = false;
    for (std::size_t at = head.find("$scope"); at != std::string::npos;
         at = head.find("$scope", at + 6)) {
        const std::size_t stop = head.find("$end", at + 6);
        if (stop == std::string::npos) break;
        for (std::size_t i = at + 6; i < stop; ++i) {
            if (head[i] == '(') head[i] = '[', changed = true;
            if (head[i] == ')') head[i] = ']', changed = true;
        }
    }
    if (!changed) return;
    f.clear();
    f.seekp(0);
    f.write(head.data(), static_cast<std::streamsize>(head.size()));
}

std::string simulation::resolved_config() const { return resolved_yaml(m_desc, m_registry); }

// Every file is written atomically (traces/atomic_file.h), and stats.json, which marks a
// complete set (a sweep reads a point's result from it, `trainvp run` refuses to overwrite it
// without --force), goes first out and last in: a run killed while writing leaves a folder
// without stats.json, never one whose stats.json sits beside files of another run.
void simulation::write_outputs(const std::string& dir, const run_result& r) {
    namespace fs = std::filesystem;
    const std::string stats = (fs::path(dir) / "stats.json").string();
    std::error_code ec;
    fs::remove(stats, ec);
    if (ec) throw sim_error("cannot write '" + stats + "': " + ec.message());
    write_file_atomically((fs::path(dir) / "config.resolved.yaml").string(), resolved_config());
    write_file_atomically((fs::path(dir) / "stats.csv").string(), stats_csv(r));
    write_file_atomically((fs::path(dir) / "timeline.json").string(), timeline_json());
    // SystemC opens the VCD file at the end of the first delta cycle: a run interrupted
    // within it (a loosely-timed thread that never yielded) has no waves to write.
    const bool no_waves = r.status == run_status::INTERRUPTED && !m_vcd_base.empty() &&
                          !fs::exists(m_vcd_base + ".vcd");
    if (!m_vcd_base.empty() && !no_waves) {
        const std::string vcd = m_vcd_base + ".vcd";
        if (!fs::exists(vcd)) {
            throw sim_error(
                "waves.vcd was not written: SystemC opens it at the end of the first "
                "delta cycle, and the run ended before one (at " +
                units::format_time(r.end_time.to_seconds()) + " simulated)");
        }
        check_file_written(vcd);
        blank_vcd_date(vcd);
        restore_vcd_scopes(vcd);
        commit_file(vcd, (fs::path(dir) / "waves.vcd").string());
    }
    write_file_atomically(stats, stats_json(r));
}

run_summary simulation::make_summary(const run_result& r) const {
    run_summary s;
    s.status = run_status_name(r.status);
    s.simulated_s = r.end_time.to_seconds();
    s.wall_s = r.wall_seconds;
    s.warnings = m_warnings;
    s.bottlenecks = r.bottlenecks;
    visit_stats(
        [&](const ip_module& b, const stat_decl& d, const std::string& name, const void* v) {
            if (!d.headline) return;
            double x = 0;
            if (d.kind == stat_kind::COUNTER)
                x = static_cast<double>(static_cast<const counter*>(v)->value());
            if (d.kind == stat_kind::SCALAR) x = static_cast<const scalar*>(v)->value();
            if (d.kind == stat_kind::DISTRIBUTION) x = static_cast<const distribution*>(v)->mean();
            s.stats.push_back({b.type().name, b.path(), name, d.unit, x});
        });
    // Faults as inputs (ip/ethernet/README.md, "Faults"): one note with their totals, only
    // when a fault happened (fault-free summaries are unchanged).
    {
        double down_ns = 0, down = 0, corrupted = 0, lost = 0, resent = 0;
        visit_stats(
            [&](const ip_module& b, const stat_decl& d, const std::string& name, const void* v) {
                (void)b;
                const auto value = [&] {
                    if (d.kind == stat_kind::COUNTER)
                        return static_cast<double>(static_cast<const counter*>(v)->value());
                    if (d.kind == stat_kind::SCALAR) return static_cast<const scalar*>(v)->value();
                    return 0.0;
                };
                if (name == "down_time") down_ns += value();
                if (name == "frames_down") down += value();
                if (name == "frames_corrupted") corrupted += value();
                if (name == "tx_frames_lost") lost += value();
                if (name == "tx_retransmits") resent += value();
            });
        if (down_ns > 0 || down > 0 || corrupted > 0 || lost > 0 || resent > 0) {
            const auto n = [](double x) { return std::to_string(static_cast<long long>(x)); };
            s.notes.push_back(
                "faults: links down " + run_summary::format_value(down_ns * 1e-9, "s", "") +
                " in all; frames dropped by links: " + n(down) + " while down, " + n(corrupted) +
                " corrupted; frames the NICs lost: " + n(lost) + ", resent: " + n(resent));
        }
    }
    for (const drivers::measured_stat& m : r.measured) {
        s.stats.push_back({m.type, m.block, m.name, m.unit, m.value});
    }
    s.audited = r.audited;
    s.audit_checks = r.audit_checks;
    s.audit_broken = r.audit_violations.size();
    if (r.has_breakdown) {
        const double per = 1e-12 / static_cast<double>(r.iterations);  // ps -> s per iteration
        s.has_iteration = true;
        s.iterations = r.iterations;
        s.iteration_s = static_cast<double>(r.breakdown.total_ps) * per;
        // The critical path's parts, in the order of the breakdown (zero parts left out).
        for (std::size_t p = 0; p < workloads::k_breakdown_parts; ++p) {
            if (r.breakdown.ps[p] == 0) continue;
            s.breakdown.push_back({workloads::part_name(static_cast<workloads::breakdown_part>(p)),
                                   static_cast<double>(r.breakdown.ps[p]) * per});
        }
    } else if (!r.breakdown.error.empty()) {
        s.notes.push_back("no iteration breakdown: " + r.breakdown.error);
    }
    if (r.status == run_status::MAX_TIME) {
        s.notes.push_back("stopped at simulation.max_time before every driver finished");
    }
    if (r.status != run_status::FINISHED) s.notes.push_back("statistics " + incomplete_note(r));
    return s;
}

std::pair<std::string, std::string> simulation::nothing_to_do() const {
    if (m_blocks.empty()) {
        return {"components",
                "the config builds no blocks (no `components:`; a file of `templates:` only is "
                "for including: instantiate one with `components: NAME: {template: T, count: N}`)"};
    }
    std::size_t drivers = 0, idle = 0;
    for (const ip_module* b : m_blocks) {
        if (!b->is_driver()) continue;
        ++drivers;
        if (!b->has_work()) ++idle;
    }
    if (drivers == 0) {
        return {"workload",
                "no block drives the platform (no `workload:` and no traffic generator): a run "
                "would simulate nothing"};
    }
    if (idle == drivers) {
        return {"workload",
                "the workload gives no work: every driver (" + std::to_string(drivers) +
                    ") has nothing to do (no ops or messages, or only ops of 0 FLOPs, 0 bytes and "
                    "no delay: the run would end at time 0)"};
    }
    return {};
}

std::string simulation::summary(const run_result& r) const { return make_summary(r).text(); }

}  // namespace trainvp
