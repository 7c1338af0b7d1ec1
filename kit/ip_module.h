// Base of every IP block.  Constructors have one shape, (const sc_module_name&, const params&),
// and declare params, ports, stats and signals in a static `declare(type_decl<T>&)`.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <systemc>

#include "core/params.h"
#include "kit/audit_log.h"
#include "kit/ip_type.h"
#include "kit/peer_view.h"
#include "kit/sim_context.h"
#include "workloads/ops/message_pairing.h"

namespace trainvp {

class ip_module : public sc_core::sc_module {
public:
    ip_module(const sc_core::sc_module_name& name, const params& p);

    // The block's path in the config ("node[2].mem"); SystemC's name() spells it node_2.mem.
    const std::string& path() const { return m_path; }
    const type_info& type() const { return *m_type; }

    // A driver runs a workload (a traffic generator, a host running its op list).  The run
    // ends when every driver has finished.
    virtual bool is_driver() const { return false; }
    virtual bool finished() const { return true; }
    // Whether a driver was given anything to do (ops, messages) once the workload is handed
    // out.  When no driver has work, the command line says so instead of simulating nothing.
    virtual bool has_work() const { return true; }
    // The work this block holds, for the stall report ("3 of 10 messages outstanding");
    // empty when it holds none.
    virtual std::string pending_work() const { return {}; }
    // The validation phase, after binding and the workload's hand-out and before any simulated
    // time (`check` and `run` alike): the block checks what it needs of its peers (the memory
    // its addresses land in, the node ids its sends reach) and throws input_error located at
    // the offending value, saying what exists instead.
    virtual void validate_peers(const peer_view& peers) const { (void)peers; }
    // The messages of an op list known in full before the run (a written-out `workload.ops`
    // list): its sends and receives, with the node ids they go between and `owner` this block,
    // for the validation phase to pair across blocks (workloads/ops/message_pairing.h); none
    // for a generated stream, whose schedules pair by construction.
    virtual void declare_messages(ops::message_pairing& pairs) const { (void)pairs; }
    // Where the message entry with `index` (declare_messages) was given: the op's value
    // `field` ("to", "from", "bytes"), its full key and the op as a message names it.
    using message_site = ops::message_pairing::site;
    virtual message_site site_of_message(std::size_t index, const char* field) const;
    // The bytes of address space the block serves at its target sockets (a memory's size), or
    // 0 when it is not a memory.
    virtual std::uint64_t address_space() const { return 0; }
    // The initiator socket by which the block passes on the memory requests that reach its
    // target sockets (a PCIe link: "host"), or null when it serves or ends them itself.
    virtual const char* passes_requests_to() const { return nullptr; }
    // Called once when the run ends, before statistics are written (e.g. to compute a
    // utilisation from busy time and elapsed time).
    virtual void end_of_run() {}
    // The block's invariants, checked once a run has finished (every driver done, nothing in
    // flight): frames and bytes conserved, queues drained, work complete.  See audit_log.h.
    virtual void audit(audit_log& log) const { (void)log; }
    // The data rate, bytes per second each way, the block moves through `socket` at most (a
    // NIC's line rate on its PCIe socket; a PCIe link's data rate after TLP overheads), or 0
    // when it does not say.  A binding whose initiator states more than its target gets a
    // warning in the run summary (a 100 GbE NIC on a PCIe 2.0 x8 slot).
    virtual double socket_rate(const std::string& socket) const {
        (void)socket;
        return 0.0;
    }

    // A time in nanoseconds, exact to the picosecond (for statistics in ns).
    static double ns(const sc_core::sc_time& t) { return static_cast<double>(t.value()) / 1000.0; }

protected:
    // Registers a thread (use instead of SC_THREAD).  An exception escaping `body` does not
    // unwind through the kernel: it fails the run (sim_context::fail) and the thread ends.
    void spawn_thread(const char* name, std::function<void()> body);
    // Registers a method process, run once at the start and then whenever the trigger it set
    // (next_trigger) fires; it must not wait().  Cheaper than a thread (no stack of its own to
    // switch to); an exception fails the run as in spawn_thread.
    void spawn_method(const char* name, std::function<void()> body);
    // Registers an event-driven engine run by the platform's wake queue (kit/wake_queue.h):
    // what spawn_method gives, without a SystemC process and event of its own per engine (the
    // choice for an engine that runs per message in a large platform).  The body waits with
    // e.sleep_until / sleep_for / park; other code wakes a parked engine with e.wake.
    void start_engine(wake_queue::engine& e, std::function<void()> body);

    sim_context& ctx() const { return *m_ctx; }
    // Tells the controller a driver finished (call once, after finished() turns true).
    void notify_finished() { m_ctx->driver_done().notify(sc_core::SC_ZERO_TIME); }
    void progress() { m_ctx->progress(); }
    void progress_until(const sc_core::sc_time& t) { m_ctx->progress_until(t); }
    // Whether the timeline records spans (simulation.timeline): test it before building a span's
    // name, which a scale run would otherwise build per message for nothing.
    bool spans_on() const { return m_ctx->spans().enabled(); }
    void span(const std::string& name, const std::string& cat, const sc_core::sc_time& start,
              const sc_core::sc_time& end) {
        m_ctx->spans().span(m_path, name, cat, start.value(), end.value());
    }

private:
    std::string m_path;
    const type_info* m_type = nullptr;
    sim_context* m_ctx;
};

}  // namespace trainvp
