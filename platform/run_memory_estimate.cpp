#include "platform/run_memory_estimate.h"

#include <algorithm>

#include "core/units.h"
#include "platform/memory_estimate.h"

namespace trainvp {

namespace {
constexpr std::uint64_t k_most = memory_estimate::k_most;
std::uint64_t times(std::uint64_t a, std::uint64_t b) { return memory_estimate::times(a, b); }
std::uint64_t plus(std::uint64_t a, std::uint64_t b) { return memory_estimate::plus(a, b); }

std::string part(std::uint64_t bytes, const std::string& what, std::uint64_t n,
                 const std::string& unit, std::uint64_t each) {
    return units::format_size(static_cast<double>(bytes)) + " for " + what + " (" +
           std::to_string(n) + " " + unit + " x ~" + std::to_string(each) + " B)";
}
}  // namespace

run_memory_estimate::run_memory_estimate(std::uint64_t blocks, std::vector<host_ops> hosts,
                                         bool timeline, bool breakdown)
    : m_blocks(std::min(k_most, blocks)),
      m_hosts(std::move(hosts)),
      m_timeline(timeline),
      m_breakdown(breakdown) {
    for (const host_ops& h : m_hosts) {
        m_ops = plus(m_ops, h.ops);
        m_window_ops = plus(m_window_ops, window_of(h));
    }
}

std::uint64_t run_memory_estimate::window_of(const host_ops& h) {
    if (h.ops == 0 || h.chunks == 0) return 0;
    const std::uint64_t per_chunk = h.ops / h.chunks + (h.ops % h.chunks != 0 ? 1 : 0);
    return std::min(h.ops, times(std::min<std::uint64_t>(h.chunks, 2), per_chunk));
}

std::uint64_t run_memory_estimate::block_bytes() const {
    return times(m_blocks, memory_estimate::k_bytes_per_block);
}

std::uint64_t run_memory_estimate::window_bytes() const {
    return times(m_window_ops, k_bytes_per_window_op);
}

std::uint64_t run_memory_estimate::span_bytes() const {
    return m_timeline ? plus(k_timeline_base_bytes, times(m_ops, k_bytes_per_span_op)) : 0;
}

std::uint64_t run_memory_estimate::breakdown_bytes() const {
    return m_breakdown ? times(m_ops, k_bytes_per_breakdown_op) : 0;
}

std::uint64_t run_memory_estimate::bytes() const {
    return plus(plus(k_program_bytes, plus(block_bytes(), window_bytes())),
                plus(span_bytes(), breakdown_bytes()));
}

std::string run_memory_estimate::parts() const {
    std::string out = units::format_size(static_cast<double>(k_program_bytes)) +
                      " for the program + " +
                      units::format_size(static_cast<double>(block_bytes())) + " for " +
                      std::to_string(m_blocks) + " blocks x ~" +
                      std::to_string(memory_estimate::k_bytes_per_block / 1024) + " KiB";
    if (window_bytes() > 0) {
        out += " + " + part(window_bytes(), "the hosts' op windows", m_window_ops, "ops held",
                            k_bytes_per_window_op);
    }
    if (span_bytes() > 0) {
        out += " + " + units::format_size(static_cast<double>(span_bytes())) +
               " for the timeline (~" +
               units::format_size(static_cast<double>(k_timeline_base_bytes)) + " + " +
               std::to_string(m_ops) + " ops run x ~" + std::to_string(k_bytes_per_span_op) + " B)";
    }
    if (breakdown_bytes() > 0) {
        out += " + " + part(breakdown_bytes(), "the breakdown's records", m_ops, "ops run",
                            k_bytes_per_breakdown_op);
    }
    return out;
}

}  // namespace trainvp
