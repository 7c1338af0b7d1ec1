#include "ip/pcie/pcie_link.h"

#include <algorithm>

#include "kit/registry.h"
#include "kit/sim_time.h"

namespace trainvp::ip {

namespace {

// Raw rate per lane in MT/s by generation (PCI Express Base Specification rev 3.0 §4.2:
// 2.5, 5.0 and 8.0 GT/s; rev 4.0 adds 16.0 GT/s, rev 5.0 32.0 GT/s).
constexpr std::uint64_t k_mts[] = {0, 2500, 5000, 8000, 16000, 32000};

// Line-encoding efficiency as num/den: 8b/10b at 2.5 and 5.0 GT/s (rev 3.0 §4.2.1), 128b/130b
// from 8.0 GT/s on (rev 3.0 §4.2.2).
struct encoding {
    std::uint64_t num, den;
};
encoding encoding_of(std::uint64_t gen) { return gen <= 2 ? encoding{8, 10} : encoding{128, 130}; }

bool power_of_two(std::uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

}  // namespace

void pcie_link::declare(type_decl<pcie_link>& d) {
    d.describe(
        "PCI Express link between a device (socket dev) and host memory (socket host), "
        "carrying device-initiated DMA. Each direction moves one TLP at a time at "
        "R = lanes * GT/s * encoding / 8 (8b/10b gen 1-2, 128b/130b gen 3-5); a TLP with P data "
        "bytes occupies it for (P + overhead + dllp_overhead) / R and arrives `latency` later. "
        "A write of L bytes is ceil(L/max_payload) MWr TLPs upstream, each forwarded to host "
        "memory when it arrives; it completes when memory has taken the last. A read is "
        "ceil(L/max_read_request) header-only MRd TLPs upstream, one memory access per request "
        "at its arrival, and ceil(len/max_payload) completion TLPs per request downstream; it "
        "completes when the last completion arrives. TLP i in a direction starts no earlier "
        "than TLP i-credits arrived + latency (its credit returned). So a long write streams at "
        "R * MPS / (MPS + tlp_overhead + dllp_overhead) unless credits * t_TLP < t_TLP + "
        "2*latency, when it streams at credits * MPS / (t_TLP + 2*latency).");
    d.param("gen", &pcie_link::m_gen, "3",
            "PCIe generation: 1..5 = 2.5, 5.0, 8.0, 16.0, 32.0 GT/s per lane (PCI Express Base "
            "Specification rev 3.0 §4.2; 16 GT/s rev 4.0; 32 GT/s rev 5.0), 8b/10b encoding "
            "for gen 1-2 (rev 3.0 §4.2.1), 128b/130b for gen 3-5 (rev 3.0 §4.2.2). Gen 6 (PAM4, "
            "FLIT mode) is not modelled. Default: Gen3, as the Arria 10 smart NIC (smartnic.md "
            "§V) and the VC709 NIC (inceptionn.md §VI-A) use")
        .range("1", "5");
    d.param("lanes", &pcie_link::m_lanes, "8",
            "Link width: 1, 2, 4, 8 or 16 lanes (rev 3.0 §7.8.6, Link Capabilities: Maximum Link "
            "Width). Default x8, the smart NIC's Gen3x8 (smartnic.md §V)")
        .range("1", "16");
    d.param("max_payload", &pcie_link::m_max_payload, "256B",
            "Max_Payload_Size: data bytes per TLP at most, a power of two 128B..4KiB (rev 3.0 "
            "§7.8.4, Device Control; §2.2.2). Default 256B, what server root ports commonly "
            "allow")
        .range("128B", "4KiB");
    d.param("max_read_request", &pcie_link::m_max_read_request, "512B",
            "Max_Read_Request_Size: bytes one read request may ask for, a power of two 128B.."
            "4KiB (rev 3.0 §7.8.4, Device Control; 512B is the register's default)")
        .range("128B", "4KiB");
    d.param("tlp_overhead", &pcie_link::m_tlp_overhead, "24B",
            "Wire bytes of a request TLP (MWr, MRd) besides its data. At 8 GT/s and up: STP "
            "framing token with the 12-bit sequence number 4B (rev 3.0 §4.2.2.3.1) + 4-DW header "
            "16B, the format of 64-bit addresses (§2.2.1, §2.2.4.1) + LCRC 4B (§3.5.2) = 24B. "
            "At 2.5/5 GT/s: STP 1 + sequence number 2 + header 16 + LCRC 4 + END 1 = 24B "
            "(§4.2.1.2, §3.5.2). No ECRC (optional TLP digest, §2.7). 32-bit addresses (3-DW "
            "header): 20B")
        .range("0B", "256B");
    d.param("completion_overhead", &pcie_link::m_completion_overhead, "20B",
            "Wire bytes of a completion TLP (CplD) besides its data: framing and sequence number "
            "4B + 3-DW completion header 12B (rev 3.0 §2.2.9: completions use the 3-DW format) "
            "+ LCRC 4B = 20B; the same at 2.5/5 GT/s (1 + 2 + 12 + 4 + 1)")
        .range("0B", "256B");
    d.param("dllp_overhead", &pcie_link::m_dllp_overhead, "4B",
            "Data-link packet bytes charged per TLP, in the TLP's direction. A DLLP is 6B (rev "
            "3.0 §3.4: 4B + 16-bit CRC) plus 2B framing (SDP token §4.2.2.3.1; SDP and END "
            "symbols at 2.5/5 GT/s) = 8B. Default: one Ack (coalesced under the AckNak latency "
            "timer, §3.5.3.1) and one UpdateFC (§2.6.1.2) per 4 TLPs = 2 * 8B / 4 = 4B. Acks and "
            "UpdateFCs travel against the TLPs they answer; charging them to the TLP's own "
            "direction is exact for symmetric traffic and pessimistic by dllp/(MPS + overhead) "
            "(1.4% at 256B) for one-way traffic. Ordered sets (SKP, ~0.3% at 8 GT/s) are not "
            "modelled")
        .range("0B", "256B");
    d.param("latency", &pcie_link::m_latency, "200ns",
            "One-way latency of a TLP after its last byte left: both ports' PHY, data link and "
            "transaction layers and the root complex, up to the memory controller. Default "
            "200ns puts a 64B DMA read round trip near 500ns with the memory block's 80ns, the "
            "order Neugebauer et al. measured with pcie-bench on Xeon hosts ('Understanding "
            "PCIe performance for end host networking', SIGCOMM 2018)")
        .range("0ns", "100us");
    d.param("credits", &pcie_link::m_credits, "128",
            "TLPs in flight per direction before a credit must return (the receiver's buffer "
            "in TLPs; flow control rev 3.0 §2.6.1). A credit returns `latency` after its TLP "
            "arrived. Default 128: a Gen5 x16 256B-MPS stream at the default latency needs "
            "(t_TLP + 2*latency)/t_TLP = 89.8 to stay unthrottled")
        .range("1", "65536");
    d.choice("service_order", &pcie_link::m_service_order,
             {{"call", order::CALL}, {"time", order::TIME}}, "time",
             "Order in which each direction serves TLPs. time (default): in arrival-time order, "
             "a TLP taking the first idle time at or after it is ready around earlier "
             "reservations (kit/time_ordered_resource.h), as the link's transmit arbiter "
             "sends the TLPs that exist (rev 3.0 §2.4 ordering applies between TLPs that have "
             "been issued); a credit is free unless `credits` TLPs that started earlier still "
             "hold theirs. call: in the order they are made (FIFO behind every earlier "
             "reservation): a read request made now waits behind a write reserved for a frame "
             "that is still being processed, a loosely-timed artefact that made packet level "
             "12-29 % slower than message level on the INC+C rings and the 100 GbE software "
             "baseline (issue 8). Equal when TLPs are made in time order; the smart-NIC "
             "baseline's software costs are calibrated with time order (configs/papers/smartnic/"
             "nodes.yaml); ip/pcie/README.md, 'Service order'");
    d.target("dev", &pcie_link::dev, "mem", "DMA reads and writes from the device");
    d.initiator("host", &pcie_link::host, "mem", "Requests to host memory (the root complex)");

    d.stat("writes", &pcie_link::m_writes, "1", "Write requests from the device");
    d.stat("reads", &pcie_link::m_reads, "1", "Read requests from the device");
    d.stat("bytes_written", &pcie_link::m_bytes_written, "B", "Bytes written to host memory");
    d.stat("bytes_read", &pcie_link::m_bytes_read, "B", "Bytes read from host memory");
    d.stat("errors", &pcie_link::m_errors, "1", "Requests host memory answered with an error");
    d.stat("write_latency", &pcie_link::m_write_latency_ns, "ns",
           "Device write request to host memory completion");
    d.stat("read_latency", &pcie_link::m_read_latency_ns, "ns",
           "Device read request to the last completion at the device");
    struct dir_of {
        const char* name;
        direction pcie_link::*member;
        const char* what;
    };
    for (const dir_of& x : {dir_of{"up", &pcie_link::m_up, "device to host (MWr, MRd)"},
                            dir_of{"down", &pcie_link::m_down, "host to device (CplD)"}}) {
        const std::string n = x.name;
        const std::string w = x.what;
        auto m = x.member;
        d.stat_of(
            n + "_tlps", [m](const pcie_link& l) -> const counter& { return (l.*m).tlps; }, "1",
            "TLPs sent " + w);
        d.stat_of(
            n + "_payload", [m](const pcie_link& l) -> const counter& { return (l.*m).payload; },
            "B", "Data bytes carried " + w);
        d.stat_of(
            n + "_wire_bytes",
            [m](const pcie_link& l) -> const counter& { return (l.*m).wire_bytes; }, "B",
            "Bytes on the wire " + w + ": data + TLP overhead + DLLP share (before encoding)");
        d.stat_of(
            n + "_efficiency",
            [m](const pcie_link& l) -> const scalar& { return (l.*m).efficiency; }, "1",
            "payload / wire_bytes " + w);
        d.stat_of(
            n + "_busy_time", [m](const pcie_link& l) -> const scalar& { return (l.*m).busy_ns; },
            "ns", "Time the direction " + w + " was sending");
        d.stat_of(
             n + "_utilisation",
             [m](const pcie_link& l) -> const scalar& { return (l.*m).utilisation; }, "1",
             "busy_time / simulated time, " + w)
            .headline = true;
        d.stat_of(
            n + "_credit_stalls",
            [m](const pcie_link& l) -> const counter& { return (l.*m).credit_stalls; }, "1",
            "TLPs " + w + " that waited for a credit with the wire free");
        d.stat_of(
            n + "_credit_stall_time",
            [m](const pcie_link& l) -> const scalar& { return (l.*m).credit_stall_ns; }, "ns",
            "Time the wire " + w + " sat idle waiting for credits");
        d.stat_of(
            n + "_queue_delay",
            [m](const pcie_link& l) -> const distribution& {
                return l.m_service_order == order::TIME ? (l.*m).timed.wait_ns()
                                                        : (l.*m).wire.wait_ns();
            },
            "ns",
            "Per TLP " + w +
                ": start minus ready (serialisation behind earlier TLPs and "
                "credit waits)");
        d.signal_of(
            n + "_busy",
            [m](pcie_link& l) -> traced_level& {
                return l.m_service_order == order::TIME ? (l.*m).timed.busy_signal()
                                                        : (l.*m).wire.busy_signal();
            },
            "1 while the direction " + w + " sends a TLP");
    }
}

double pcie_link::socket_rate(const std::string& socket) const {
    if (socket != "dev") return 0.0;
    const double payload = static_cast<double>(m_max_payload.bytes);
    return m_rate * payload / (payload + static_cast<double>(m_tlp_overhead.bytes));
}

pcie_link::pcie_link(const sc_core::sc_module_name& name, const params& p) : ip_module(name, p) {
    p.apply(*this);
    check_params(p);
    const encoding e = encoding_of(m_gen);
    m_rate = static_cast<double>(m_lanes) * static_cast<double>(k_mts[m_gen]) * 1e6 *
             static_cast<double>(e.num) / static_cast<double>(e.den) / 8.0;
    m_lat = ps_time(m_latency.ps);
    // In time order, at most (longest hold) / (shortest TLP) + 1 TLPs can hold a credit at one
    // instant (the wire sends one at a time); with fewer credits than that they can bind.
    const sc_core::sc_time shortest =
        tlp_time(0, std::min(m_tlp_overhead.bytes, m_completion_overhead.bytes));
    const sc_core::sc_time longest_hold =
        tlp_time(m_max_payload.bytes, std::max(m_tlp_overhead.bytes, m_completion_overhead.bytes)) +
        m_lat + m_lat;
    m_credits_can_bind =
        shortest == sc_core::SC_ZERO_TIME ||
        static_cast<std::uint64_t>(longest_hold.value() / shortest.value()) + 1 >= m_credits;
    for (direction* dir : {&m_up, &m_down}) {
        dir->credit_back.assign(static_cast<std::size_t>(m_credits), sc_core::SC_ZERO_TIME);
    }
    dev.register_b_transport(this, &pcie_link::b_transport);
}

void pcie_link::check_params(const params& p) {
    auto value_of = [&](const char* name) {
        const config_node* v = p.find(name);
        return std::make_pair(v ? v->loc() : p.where(), v ? v->scalar() : std::string());
    };
    if (m_lanes != 1 && m_lanes != 2 && m_lanes != 4 && m_lanes != 8 && m_lanes != 16) {
        auto [loc, text] = value_of("lanes");
        throw input_error(
            loc, path() + ".lanes",
            "'" + text + "' is not a PCIe link width; lanes must be 1, 2, 4, 8 or 16");
    }
    for (auto [name, size] : {std::make_pair("max_payload", m_max_payload.bytes),
                              std::make_pair("max_read_request", m_max_read_request.bytes)}) {
        if (!power_of_two(size)) {
            auto [loc, text] = value_of(name);
            throw input_error(loc, path() + "." + name,
                              "'" + text +
                                  "' is not a power of two; PCIe allows 128B, 256B, 512B, 1KiB, "
                                  "2KiB or 4KiB");
        }
    }
}

sc_core::sc_time pcie_link::tlp_time(std::uint64_t payload, std::uint64_t overhead) const {
    // bytes * 8 bits / (lanes * MT/s * 1e6 * num/den) seconds, in whole picoseconds: exact
    // integer arithmetic so that the closed forms in the tests are reproducible.
    const encoding e = encoding_of(m_gen);
    const std::uint64_t bytes = payload + overhead + m_dllp_overhead.bytes;
    const std::uint64_t n = bytes * 8u * e.den * 1000000u;
    const std::uint64_t d = m_lanes * k_mts[m_gen] * e.num;
    return ps_time((n + d / 2) / d);
}

sc_core::sc_time pcie_link::send(direction& dir, std::uint64_t payload, std::uint64_t overhead,
                                 const sc_core::sc_time& ready) {
    using sc_core::sc_time;
    const sc_time duration = tlp_time(payload, overhead);
    sc_time end;
    if (m_service_order == order::TIME) {
        end = send_by_time(dir, duration, ready);
    } else {
        const std::size_t slot = static_cast<std::size_t>(dir.sent % m_credits);
        // The credit of TLP i - credits (same ring slot) must have returned.
        const sc_time credit =
            dir.sent >= m_credits ? dir.credit_back[slot] : sc_core::SC_ZERO_TIME;
        const sc_time free = std::max(ready, dir.wire.busy_until());
        if (credit > free) {
            ++dir.credit_stalls;
            dir.credit_stall_ns.add(ns(credit - free));
        }
        end = dir.wire.reserve(std::max(ready, credit), duration).end;
        dir.credit_back[slot] = end + m_lat + m_lat;
    }
    const sc_time arrival = end + m_lat;
    ++dir.sent;
    ++dir.tlps;
    dir.payload += payload;
    dir.wire_bytes += payload + overhead + m_dllp_overhead.bytes;
    dir.busy_ns.add(ns(duration));
    return arrival;
}

// service_order: time.  The TLP takes the first idle gap on the wire at or after `ready` that
// holds it whole and in which a credit is free: at most `credits` TLPs hold one at any instant,
// each from its start until it arrived + latency.  Only TLPs that overlap that instant count,
// not those reserved for later (unlike the call-order ring).
sc_core::sc_time pcie_link::send_by_time(direction& dir, const sc_core::sc_time& duration,
                                         const sc_core::sc_time& ready) {
    using sc_core::sc_time;
    // Served in arrival order: a TLP ready no earlier than the one made before it does not
    // overtake it (and skips the search through what that one already passed).
    const sc_time from = ready >= dir.last_ready ? std::max(ready, dir.last_start) : ready;
    const sc_time free = dir.timed.first_fit(from, duration);
    sc_time t = free;
    if (m_credits_can_bind) {
        // holds is sorted by start and so by credit return too (each TLP starts after the one
        // before it has left the wire and holds its credit for its duration + 2 latency).
        const sc_time now = sim_now();
        // Returned credits cannot count (their return is before now <= t); drop them now and
        // then, in one go, to keep insertion cheap.
        if (dir.holds.size() >= 4096 && dir.holds[dir.holds.size() / 2].back <= now) {
            const auto gone =
                std::upper_bound(dir.holds.begin(), dir.holds.end(), now,
                                 [](const sc_time& x, const credit_hold& h) { return x < h.back; });
            dir.holds.erase(dir.holds.begin(), gone);
        }
        const auto by_start = [](const sc_time& x, const credit_hold& h) { return x < h.start; };
        // Credits held at t: of the TLPs started at or before t (before p), those whose credit
        // has not returned by t, a run at the end as returns are in start order.  So a credit
        // is free unless the credits-th last of them is still out, and then it frees when
        // that one returns.
        const auto cr = static_cast<std::ptrdiff_t>(m_credits);
        auto p = dir.holds.empty() || t >= dir.holds.back().start
                     ? dir.holds.end()
                     : std::upper_bound(dir.holds.begin(), dir.holds.end(), t, by_start);
        while (p - dir.holds.begin() >= cr && (p - cr)->back > t) {
            t = dir.timed.first_fit((p - cr)->back, duration);
            // A few steps forward, or a search when t jumped past many.
            for (int i = 0; i < 8 && p != dir.holds.end() && p->start <= t; ++i) ++p;
            if (p != dir.holds.end() && p->start <= t) {
                p = std::upper_bound(p, dir.holds.end(), t, by_start);
            }
        }
        if (t > free) {
            ++dir.credit_stalls;
            dir.credit_stall_ns.add(ns(t - free));
        }
    }
    const sc_time end = dir.timed.reserve_at(ready, t, duration).end;
    dir.last_ready = ready;
    dir.last_start = t;
    if (m_credits_can_bind) {
        const credit_hold h{t, end + m_lat + m_lat};
        if (dir.holds.empty() || t >= dir.holds.back().start) {
            dir.holds.push_back(h);  // the usual case: TLPs started in time order
        } else {
            const auto at = std::upper_bound(
                dir.holds.begin(), dir.holds.end(), t,
                [](const sc_time& x, const credit_hold& c) { return x < c.start; });
            dir.holds.insert(at, h);
        }
    }
    return end;
}

bool pcie_link::host_access(tlm::tlm_generic_payload& orig, tlm::tlm_command cmd,
                            std::uint64_t offset, std::uint64_t len, const sc_core::sc_time& at,
                            sc_core::sc_time& done) {
    const sc_core::sc_time now = sim_now();
    unsigned char* data = orig.get_data_ptr();
    m_fwd.set_command(cmd);
    m_fwd.set_address(orig.get_address() + offset);
    m_fwd.set_data_ptr(data ? data + offset : nullptr);
    m_fwd.set_data_length(static_cast<unsigned>(len));
    m_fwd.set_streaming_width(static_cast<unsigned>(len));
    m_fwd.set_byte_enable_ptr(nullptr);
    m_fwd.set_dmi_allowed(false);
    m_fwd.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_core::sc_time delay = at - now;
    host->b_transport(m_fwd, delay);
    if (m_fwd.is_response_error()) {
        ++m_errors;
        orig.set_response_status(m_fwd.get_response_status());
        return false;
    }
    done = now + delay;
    return true;
}

// One host-side transaction per PCIe transaction: per MWr TLP for writes (each posted write is
// committed by the root complex on its own, so memory works while later TLPs are still on the
// wire), per MRd request for reads (the root complex answers one request with its completions).
void pcie_link::b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
    using sc_core::sc_time;
    const sc_time now = sim_now();
    const sc_time ready = now + delay;
    const std::uint64_t len = trans.get_data_length();
    if (trans.get_byte_enable_ptr() != nullptr) {
        trans.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
        return;
    }
    if (trans.get_streaming_width() < len) {
        trans.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
        return;
    }
    const std::uint64_t mps = m_max_payload.bytes;
    sc_time done = ready;
    // A transaction's TLPs leave in order in each direction.  The call-order wire does that by
    // itself; in time order each is made ready no earlier than the one before it left (which
    // also spares the search through that one's reservations).
    sc_time up_after = ready, down_after = ready;
    const auto in_order = [this](const sc_time& r, const sc_time& after) {
        return m_service_order == order::TIME ? std::max(r, after) : r;
    };
    if (trans.is_write()) {
        // A zero-length write is still one TLP.
        const std::uint64_t tlps = std::max<std::uint64_t>(1, (len + mps - 1) / mps);
        for (std::uint64_t i = 0; i < tlps; ++i) {
            const std::uint64_t off = i * mps;
            const std::uint64_t p = std::min(mps, len - off);
            const sc_time arrival = send(m_up, p, m_tlp_overhead.bytes, in_order(ready, up_after));
            up_after = arrival - m_lat;
            sc_time mem_done;
            if (!host_access(trans, tlm::TLM_WRITE_COMMAND, off, p, arrival, mem_done)) return;
            done = std::max(done, mem_done);
        }
        ++m_writes;
        m_bytes_written += len;
        m_write_latency_ns.sample(ns(done - ready));
    } else if (trans.is_read()) {
        const std::uint64_t mrrs = m_max_read_request.bytes;
        const std::uint64_t requests = std::max<std::uint64_t>(1, (len + mrrs - 1) / mrrs);
        for (std::uint64_t j = 0; j < requests; ++j) {
            const std::uint64_t off = j * mrrs;
            const std::uint64_t r = std::min(mrrs, len - off);
            const sc_time arrival = send(m_up, 0, m_tlp_overhead.bytes, in_order(ready, up_after));
            up_after = arrival - m_lat;
            sc_time mem_done;
            if (!host_access(trans, tlm::TLM_READ_COMMAND, off, r, arrival, mem_done)) return;
            const std::uint64_t cpls = std::max<std::uint64_t>(1, (r + mps - 1) / mps);
            for (std::uint64_t c = 0; c < cpls; ++c) {
                const std::uint64_t q = std::min(mps, r - c * mps);
                const sc_time arrival =
                    send(m_down, q, m_completion_overhead.bytes, in_order(mem_done, down_after));
                down_after = arrival - m_lat;
                done = std::max(done, arrival);
            }
        }
        ++m_reads;
        m_bytes_read += len;
        m_read_latency_ns.sample(ns(done - ready));
    } else {
        trans.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
        return;
    }
    if (done > m_last_done) m_last_done = done;
    delay = done - now;
    trans.set_response_status(tlm::TLM_OK_RESPONSE);
    progress_until(done);
}

std::string pcie_link::pending_work() const {
    if (m_last_done <= sim_now()) return {};
    return "transfers in flight until " + m_last_done.to_string();
}

void pcie_link::end_of_run() {
    const double t = ns(sim_now());
    for (direction* dir : {&m_up, &m_down}) {
        const sc_core::sc_time until = std::max(dir->wire.busy_until(), dir->timed.busy_until());
        dir->utilisation.set(resource_usage::busy_fraction(dir->busy_ns.value(), ns(until), t));
        dir->efficiency.set(dir->wire_bytes.value()
                                ? static_cast<double>(dir->payload.value()) /
                                      static_cast<double>(dir->wire_bytes.value())
                                : 0.0);
    }
}

TRAINVP_REGISTER_IP(pcie_link, "pcie.link");

}  // namespace trainvp::ip
