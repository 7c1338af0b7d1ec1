#include "ip/fpga_allreduce/fpga_allreduce.h"

#include <algorithm>
#include <cstring>
#include <map>

#include "ip/codecs/codec_registry.h"
#include "kit/registry.h"
#include "kit/sim_time.h"
#include "workloads/collectives/ring.h"

namespace trainvp::ip {

namespace {
// Clears a stack-owned extension from a stack payload when it goes out of scope, even on an
// exception.
template <typename E>
struct extension_back {
    tlm::tlm_generic_payload& trans;
    E* ext;
    ~extension_back() { trans.clear_extension(ext); }
};
template <typename E>
extension_back(tlm::tlm_generic_payload&, E*) -> extension_back<E>;
}  // namespace

using sc_core::sc_time;

void fpga_allreduce::declare(type_decl<fpga_allreduce>& d) {
    d.describe(
        "FPGA AI smart NIC (smartnic.md §IV-A, Fig. 3a): all-reduces host gradients over a "
        "logical ring of cards (node_id order) on an Ethernet switch. Per request the control "
        "FSM follows the pipelined ring schedule (workloads/collectives ring_allreduce with "
        "segments): step-1 blocks are read by DMA into the Tx FIFO; received pieces wait in the "
        "Rx FIFO, reduce steps add the local piece (DMA into the input FIFO) on the FP32 adder "
        "lanes, results go to the Tx FIFO and/or, once final, to the output FIFO and by DMA "
        "back to host memory. FIFOs are bounded; the link is credit flow-controlled. Optional "
        "BFP compression on the wire (smartnic.md §IV-B).");
    d.param("node_id", &fpga_allreduce::m_node_id, "0",
            "This card's node id = its position in the ring (it sends to node_id + 1 mod "
            "ring_size); also its switch address")
        .range("0", "4095");
    d.required("ring_size", &fpga_allreduce::m_ring_size,
               "Cards in the ring, N (smartnic.md §V-A: 6 in the prototype; Fig. 4b: up to 32)")
        .range("2", "4096");
    d.param("rate", &fpga_allreduce::m_rate, "40Gb/s",
            "Ethernet line rate of the card's port (smartnic.md §V-A: 40 Gbps links to the "
            "switch; 100 Gbps cards are discussed); must equal the rate of the link eth_tx and "
            "eth_rx are bound to (checked)")
        .range("1Gb/s", "400Gb/s");
    d.param("lanes", &fpga_allreduce::m_lanes, "8",
            "FP32 adder lanes (smartnic.md §V-A: 8 SIMD lanes at 40 Gbps, 16 on the 512-bit "
            "interfaces of 100 Gbps)")
        .range("1", "1024");
    d.param("clock", &fpga_allreduce::m_clock, "156.25MHz",
            "Clock of the adder lanes and FIFOs. Default: 40 Gb/s / 256 bits (8 x 32-bit lanes, "
            "smartnic.md §V-A) = 156.25 MHz, the datapath clock that just sustains line rate")
        .range("1MHz", "2GHz");
    d.param("adder_latency", &fpga_allreduce::m_adder_latency, "0ns",
            "Pipeline latency of the adders per piece (calibration; 0 = not modelled)")
        .range("0ns", "1ms");
    d.param("segment", &fpga_allreduce::m_segment, "8KiB",
            "FP32 bytes per streamed piece of a ring step (modelling granularity: a piece moves "
            "through the FIFOs as a unit and crosses the link as one transaction carrying all "
            "its frames' wire bytes; smaller is finer, larger simulates faster)")
        .range("64B", "16MiB");
    d.param("input_fifo", &fpga_allreduce::m_input_fifo, "32KiB",
            "Input FIFO (local operands read by DMA). Each FIFO must hold at least one segment "
            "(Tx: two). The defaults (192 KiB in all) are sized so that 8 KiB pieces keep a "
            "40 Gb/s link busy across the DMA and credit round trips; smartnic.md Table I's "
            "all-reduce uses 46 M20K blocks (115 KiB), so the real design streams finer")
        .range("64B", "1GiB");
    d.param("rx_fifo", &fpga_allreduce::m_rx_fifo, "64KiB",
            "Rx FIFO (pieces from the previous card). Its segment slots are the credits the "
            "previous card may use; it should cover the credit round trip (bandwidth x delay)")
        .range("64B", "1GiB");
    d.param("tx_fifo", &fpga_allreduce::m_tx_fifo, "64KiB", "Tx FIFO (pieces to the next card)")
        .range("128B", "1GiB");
    d.param("output_fifo", &fpga_allreduce::m_output_fifo, "32KiB",
            "Output FIFO (final pieces awaiting their DMA write to host memory)")
        .range("64B", "1GiB");
    {
        framing::spec f;
        f.mtu = "9000B";
        f.mtu_min = "46B";
        f.mtu_max = "65536B";
        f.mtu_note =
            "jumbo frames between cards (smartnic.md footnote 1: the usable fraction alpha of the "
            "40 Gbps bandwidth was very close to 1, which 9000 B frames give: 9000/9038 = 0.996)";
        f.l3l4_header = "0B";
        f.l3l4_note =
            "inter-card frames carry no IP/TCP headers (smartnic.md §V-A: Intel IKL direct "
            "inter-FPGA links)";
        f.min_wire_note = "the size of a credit frame";
        framing::declare(d, f);
    }
    d.param("dma_burst", &fpga_allreduce::m_dma_burst, "256B",
            "DMA burst (the common PCIe max payload size)")
        .range("32B", "4KiB");
    d.param("dma_outstanding", &fpga_allreduce::m_dma_outstanding, "32",
            "DMA bursts in flight (enough to cover a PCIe read round trip at Gen3 x8)")
        .range("1", "1024");
    d.choice("order", &fpga_allreduce::m_service_order,
             {{"interleaved", tx_order::INTERLEAVED}, {"rounds", tx_order::ROUNDS}}, "interleaved",
             "Order of pieces on the link. interleaved: step-1 pieces fill the gaps between "
             "forwarded ones (FIFOs far smaller than a block suffice). rounds: strictly the "
             "schedule's round order, the lockstep ring of smartnic.md Fig. 1 (the Tx FIFO must "
             "hold a whole step's pieces plus two; checked per request)");
    d.choice("compression", &fpga_allreduce::m_compression,
             {{"none", compression::NONE}, {"bfp", compression::BFP}}, "none",
             "Gradient format on the wire: none (FP32) or bfp (block floating point, "
             "ip/codecs/bfp_codec; smartnic.md §IV-B: decompressed on arrival, added in FP32, "
             "compressed again on the way out, at line rate)");
    d.param("bfp_block", &fpga_allreduce::m_bfp_block, "16",
            "BFP block size (smartnic.md §IV-B: BFP16 has blocks of 16)")
        .range("1", "65536");
    d.param("bfp_exponent_bits", &fpga_allreduce::m_bfp_exponent_bits, "8",
            "BFP shared-exponent bits (smartnic.md §IV-B: 8)")
        .range("2", "8");
    d.param("bfp_mantissa_bits", &fpga_allreduce::m_bfp_mantissa_bits, "7",
            "BFP mantissa bits plus a sign bit per element (smartnic.md §IV-B: 7)")
        .range("1", "23");
    d.param("functional", &fpga_allreduce::m_functional, "false",
            "Carry real FP32 data: DMA reads take the gradients from host memory, the adders "
            "sum them, BFP really encodes and decodes, the result is written back (needs a "
            "memory that holds data)");

    d.target("host", &fpga_allreduce::host, "nic",
             "All-reduce requests from the host (nic_msg_ext ALLREDUCE: host_addr, bytes)");
    d.initiator("notify", &fpga_allreduce::notify, "nic",
                "Completions to the host (SEND_DONE with the request's msg_id)");
    d.initiator("pcie", &fpga_allreduce::pcie, "mem", "DMA to and from host memory over PCIe");
    d.initiator("eth_tx", &fpga_allreduce::eth_tx, "eth", "Frames to the Ethernet link").line_rate =
        "rate";
    d.target("eth_rx", &fpga_allreduce::eth_rx, "eth", "Frames from the Ethernet link").line_rate =
        "rate";

    d.headline("requests", &fpga_allreduce::m_requests_done, "1", "All-reduce requests completed");
    d.stat("bytes_reduced", &fpga_allreduce::m_bytes_reduced, "B",
           "FP32 bytes all-reduced (sum of request sizes)");
    d.stat("tx_frames", &fpga_allreduce::m_tx_frames, "1",
           "Data transactions sent (one per piece; each carries ceil(payload / (mtu - "
           "l3l4_header)) frames)");
    d.stat("tx_payload", &fpga_allreduce::m_tx_payload, "B",
           "Payload bytes sent as carried (compressed with bfp)");
    d.stat("tx_wire", &fpga_allreduce::m_tx_wire, "B", "Wire bytes sent, data and credit frames");
    d.stat("rx_frames", &fpga_allreduce::m_rx_frames, "1", "Data pieces received");
    d.stat("credit_frames", &fpga_allreduce::m_credit_frames, "1",
           "Credit frames sent back to the previous card");
    d.stat("adds", &fpga_allreduce::m_adds, "1",
           "Elements through the adder lanes (reduce steps add; copy steps pass through)");
    d.stat("dma_read_bytes", &fpga_allreduce::m_dma_read_bytes, "B", "Bytes read from the host");
    d.stat("dma_write_bytes", &fpga_allreduce::m_dma_write_bytes, "B",
           "Bytes written back to the host");
    d.stat("adder_busy", &fpga_allreduce::m_adder_busy_ns, "ns", "Time the adder lanes were busy");
    d.stat("adder_utilisation", &fpga_allreduce::m_adder_util, "1",
           "Adder busy time / simulated time");
    d.stat("link_utilisation", &fpga_allreduce::m_link_util, "1",
           "Time the card's MAC was sending / simulated time");
    d.stat("latency", &fpga_allreduce::m_latency_ns, "ns",
           "Request posted to result in host memory, per request");
    d.stat("credit_wait", &fpga_allreduce::m_credit_wait_ns, "ns",
           "Time a piece at the head of the Tx FIFO waited for a credit (back-pressure)");
    d.signal_of(
        "adder_busy",
        [](fpga_allreduce& f) -> traced_level& { return f.m_lanes_busy.busy_signal(); },
        "1 while the adder lanes process a piece");
    d.signal_of(
        "tx_busy", [](fpga_allreduce& f) -> traced_level& { return f.m_mac.busy_signal(); },
        "1 while the MAC sends a frame");
    d.signal("input_fifo", &fpga_allreduce::m_in_level, "Bytes in the input FIFO");
    d.signal("rx_fifo", &fpga_allreduce::m_rx_level, "Bytes in the Rx FIFO");
    d.signal("tx_fifo", &fpga_allreduce::m_tx_level, "Bytes in the Tx FIFO");
    d.signal("output_fifo", &fpga_allreduce::m_out_level, "Bytes in the output FIFO");
    d.signal("fsm_step", &fpga_allreduce::m_step_level,
             "Ring step of the piece at the adders (1..2(N-1); 0 when idle)");
    d.signal("requests", &fpga_allreduce::m_queue_level, "Requests queued or running");
}

void fpga_allreduce::validate_peers(const peer_view& peers) const {
    // Positions taken, by the first card (config order) at each.
    std::map<std::uint64_t, const fpga_allreduce*> at;
    for (const ip_module* b : peers.blocks()) {
        const auto* card = dynamic_cast<const fpga_allreduce*>(b);
        if (card == nullptr) continue;
        if (card->m_ring_size != m_ring_size) {
            throw input_error(m_ring_size_loc, path() + ".ring_size",
                              "a ring of " + std::to_string(m_ring_size) + " cards, but " +
                                  card->path() + " is in a ring of " +
                                  std::to_string(card->m_ring_size) +
                                  ": the cards of one ring agree on its size");
        }
        const auto [it, fresh] = at.emplace(card->m_node_id, card);
        if (!fresh && card == this) {
            throw input_error(m_node_id_loc, path() + ".node_id",
                              "position " + std::to_string(m_node_id) + " of the ring is " +
                                  it->second->path() + "'s already");
        }
    }
    if (at.size() == m_ring_size) return;
    std::string missing;
    int listed = 0;
    for (std::uint64_t k = 0; k < m_ring_size && listed < 8; ++k) {
        if (at.count(k) != 0) continue;
        missing += (listed++ ? ", " : "") + std::to_string(k);
    }
    throw input_error(m_ring_size_loc, path() + ".ring_size",
                      "a ring of " + std::to_string(m_ring_size) + " cards, but the platform has " +
                          std::to_string(at.size()) + " fpga.allreduce card" +
                          (at.size() == 1 ? "" : "s") + ", none at position" +
                          (listed == 1 ? " " : "s ") + missing +
                          " (node_id): a card sends to the card at node_id + 1 mod ring_size");
}

fpga_allreduce::fpga_allreduce(const sc_core::sc_module_name& name, const params& p)
    : ip_module(name, p) {
    p.apply(*this);
    check(p, path());
    auto fail = [&](const std::string& key, const std::string& what) {
        const config_node* v = p.find(key);
        throw input_error(v ? v->loc() : p.where(), path() + "." + key, what);
    };
    m_ring_size_loc = m_node_id_loc = p.where();
    if (const config_node* v = p.find("ring_size")) m_ring_size_loc = v->loc();
    if (const config_node* v = p.find("node_id")) m_node_id_loc = v->loc();
    if (m_node_id >= m_ring_size) {
        fail("node_id", std::to_string(m_node_id) + " is not a position in a ring of " +
                            std::to_string(m_ring_size) + " cards (0.." +
                            std::to_string(m_ring_size - 1) + ")");
    }
    if (m_segment.bytes % 4 != 0) fail("segment", "must be a whole number of FP32 values");
    auto slots = [&](const char* key, const units::data_size& depth, std::size_t least) {
        const std::size_t n = static_cast<std::size_t>(depth.bytes / m_segment.bytes);
        if (n < least) {
            fail(key, std::to_string(depth.bytes) + " B holds fewer than " + std::to_string(least) +
                          " segment(s) of " + std::to_string(m_segment.bytes) + " B");
        }
        return n;
    };
    m_in_slots = slots("input_fifo", m_input_fifo, 1);
    m_rx_slots = slots("rx_fifo", m_rx_fifo, 1);
    m_tx_slots = slots("tx_fifo", m_tx_fifo, 2);
    m_out_slots = slots("output_fifo", m_output_fifo, 1);
    m_credits_free = m_rx_slots;  // every card of a ring has the same rx_fifo
    // New data enters the ring only while half the Tx FIFO (at least two slots) is free: the
    // bubble rule needs two, and the slack keeps adder-bound rings (BFP) from filling every
    // FIFO, where each adder would wait for its successor's credit piece by piece.
    m_inject_free =
        m_service_order == tx_order::ROUNDS ? 2 : std::max<std::size_t>(2, (m_tx_slots + 1) / 2);
    if (m_compression == compression::BFP) {
        m_bfp = codecs::make_codec("bfp",
                                   {{"block_size", static_cast<double>(m_bfp_block)},
                                    {"exponent_bits", static_cast<double>(m_bfp_exponent_bits)},
                                    {"mantissa_bits", static_cast<double>(m_bfp_mantissa_bits)}});
    }
    dma_channel::settings s;
    s.burst = m_dma_burst.bytes;
    s.outstanding = m_dma_outstanding;
    m_dma.configure(s);
    host.register_b_transport(this, &fpga_allreduce::host_b_transport);
    eth_rx.register_b_transport(this, &fpga_allreduce::rx_b_transport);
    spawn_thread("ctrl", [this] { ctrl_thread(); });
    spawn_thread("inject", [this] { inject_thread(); });
    spawn_thread("adder", [this] { adder_thread(); });
    spawn_thread("tx", [this] { tx_thread(); });
    spawn_thread("output", [this] { output_thread(); });
}

std::uint64_t fpga_allreduce::encoded_bytes(std::uint64_t elements) const {
    if (m_bfp) return m_bfp->encoded_bytes(static_cast<std::size_t>(elements));
    return elements * 4;
}

void fpga_allreduce::wait_until(const sc_time& t) {
    const sc_time now = sim_now();
    if (t > now) wait(t - now);
}

sc_time fpga_allreduce::dma(tlm::tlm_command cmd, std::uint64_t addr, std::uint64_t bytes,
                            const sc_time& start, unsigned char* data) {
    if (bytes == 0) return start;
    const sc_time now = sim_now();
    dma_channel::result r =
        m_dma.run(*pcie.operator->(), cmd, addr, bytes, std::max(start, now), data);
    if (!r.ok) {
        throw sim_error(path() + ": DMA " + (cmd == tlm::TLM_READ_COMMAND ? "read" : "write") +
                        " of " + std::to_string(bytes) + " B at " + std::to_string(addr) +
                        " failed: " + r.error);
    }
    (cmd == tlm::TLM_READ_COMMAND ? m_dma_read_bytes : m_dma_write_bytes) += bytes;
    progress_until(r.done);
    return r.done;
}

void fpga_allreduce::host_b_transport(tlm::tlm_generic_payload& trans, sc_time& delay) {
    nic_msg_ext* ext = nullptr;
    trans.get_extension(ext);
    if (ext == nullptr || ext->what != nic_msg_ext::op::ALLREDUCE || ext->bytes % 4 != 0) {
        trans.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
        return;
    }
    const sc_time at = sim_now() + delay;
    m_requests.push_back(request{*ext, at});
    m_queue_level.change_at(at, +1);
    m_request_posted.notify(delay);
    trans.set_response_status(tlm::TLM_OK_RESPONSE);
}

void fpga_allreduce::send_frame(packet_ext& ext, const sc_time& ready) {
    const sc_time ser = ps_time(m_rate.transfer_time(ext.wire).ps);
    const timed_resource::slot s = m_mac.reserve(std::max(ready, m_link_free), ser);
    ext.first_bit_ps = s.start.value();
    ext.last_bit_ps = s.end.value();
    wait_until(s.start);
    tlm::tlm_generic_payload trans;
    trans.set_command(tlm::TLM_WRITE_COMMAND);
    trans.set_address(0);
    trans.set_data_ptr(nullptr);
    trans.set_data_length(ext.wire);
    trans.set_streaming_width(ext.wire);
    trans.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    trans.set_extension(&ext);
    sc_time delay = sc_core::SC_ZERO_TIME;
    {
        // The extension is ours (on the stack), not the payload's: taken back even when the
        // network throws (a frame for a node it does not have), so that the payload's destructor
        // does not free it and the network's error reaches the user instead of a crash.
        const extension_back back{trans, &ext};
        eth_tx->b_transport(trans, delay);
    }
    m_link_free = std::max(s.end, sim_now() + delay);
    m_tx_wire += ext.wire;
    progress_until(m_link_free);
}

void fpga_allreduce::rx_b_transport(tlm::tlm_generic_payload& trans, sc_time& delay) {
    packet_ext* ext = nullptr;
    trans.get_extension(ext);
    if (ext == nullptr) {
        trans.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
        return;
    }
    const sc_time now = sim_now();
    const sc_time arrived = ps_time(ext->last_bit_ps);
    if (ext->tag == k_credit_tag) {
        m_credits.push_back(arrived);
        m_credit_changed.notify(arrived > now ? arrived - now : sc_core::SC_ZERO_TIME);
    } else {
        // The previous card sends only with a credit, so the FIFO has room.
        if (m_rx.size() >= m_rx_slots) {
            throw sim_error(path() + ": Rx FIFO overflow (" + std::to_string(m_rx.size()) +
                            " pieces held): the previous card sent without a credit");
        }
        rx_item it;
        it.seq = ext->tag;
        it.index = ext->seq;
        it.bytes = ext->raw_payload;
        it.arrived = arrived;
        it.data = ext->data;
        m_rx.push_back(it);
        m_rx_level.change_at(arrived, static_cast<std::int64_t>(it.bytes));
        ++m_rx_frames;
        m_rx_changed.notify(arrived > now ? arrived - now : sc_core::SC_ZERO_TIME);
    }
    progress();
    delay = arrived > now ? arrived - now : sc_core::SC_ZERO_TIME;
    trans.set_response_status(tlm::TLM_OK_RESPONSE);
}

const fpga_allreduce::ring_plan& fpga_allreduce::plan(std::uint64_t count) {
    auto found = m_plans.find(count);
    if (found != m_plans.end()) return found->second;
    ring_plan& P = m_plans[count];
    const std::uint64_t n = static_cast<std::uint64_t>(m_ring_size);
    const std::uint64_t block = (count + n - 1) / n;
    const std::uint64_t seg_elems = m_segment.bytes / 4;
    const auto segments =
        static_cast<std::uint32_t>(std::max<std::uint64_t>(1, (block + seg_elems - 1) / seg_elems));
    const collectives::schedule s =
        collectives::ring_allreduce(static_cast<int>(n), count, segments);
    const auto& steps = s.steps[static_cast<std::size_t>(m_node_id)];
    std::vector<std::pair<std::uint32_t, piece>> sends, recvs;
    for (const collectives::step& st : steps) {
        if (st.range.count == 0) continue;  // empty on both sides of the transfer
        piece p;
        p.offset = st.range.offset;
        p.count = st.range.count;
        p.step = st.round / segments + 1;
        p.reduce = st.kind == collectives::step_kind::RECV_REDUCE;
        (st.kind == collectives::step_kind::SEND ? sends : recvs).emplace_back(st.round, p);
    }
    auto by_round = [](const auto& a, const auto& b) { return a.first < b.first; };
    std::stable_sort(sends.begin(), sends.end(), by_round);
    std::stable_sort(recvs.begin(), recvs.end(), by_round);
    std::map<std::pair<std::uint32_t, std::uint64_t>, std::size_t> recv_at;  // (step, offset)
    // Steps 1..N-1 reduce; the result of step N-1 is final, as is every all-gather copy.
    const auto last_reduce = static_cast<std::uint32_t>(n - 1);
    for (auto& [round, p] : recvs) {
        p.final = p.step >= last_reduce;
        recv_at[{p.step, p.offset}] = P.recvs.size();
        P.recvs.push_back(p);
    }
    P.send_of_recv.assign(P.recvs.size(), 0);
    for (auto& [round, p] : sends) {
        if (p.step > 1) {
            auto it = recv_at.find({p.step - 1, p.offset});
            if (it == recv_at.end() || P.recvs[it->second].count != p.count) {
                throw sim_error(path() + ": the ring schedule sends a piece at step " +
                                std::to_string(p.step) + " that no step " +
                                std::to_string(p.step - 1) + " receive produced");
            }
            P.recvs[it->second].forward = true;
            P.send_of_recv[it->second] = P.sends.size();
        } else {
            ++P.step1_sends;
        }
        P.sends.push_back(p);
    }
    for (const piece& p : P.recvs) P.finals += p.final ? 1 : 0;
    P.pieces_per_step = P.step1_sends;
    if (m_service_order == tx_order::ROUNDS && m_tx_slots < P.pieces_per_step + 2) {
        throw sim_error(
            path() + ": order rounds needs a Tx FIFO of " + std::to_string(P.pieces_per_step + 2) +
            " segments for a request of " + std::to_string(count * 4) +
            " B (a step's pieces plus two); tx_fifo holds " + std::to_string(m_tx_slots));
    }
    return P;
}

void fpga_allreduce::ctrl_thread() {
    while (true) {
        while (m_requests.empty()) wait(m_request_posted);
        m_cur = m_requests.front();
        m_requests.pop_front();
        wait_until(m_cur.posted);
        m_plan = &plan(m_cur.desc.bytes / 4);
        m_sent = m_written = 0;
        ++m_seq;
        m_active = true;
        m_start_inject.notify(sc_core::SC_ZERO_TIME);
        m_start_adder.notify(sc_core::SC_ZERO_TIME);
        check_done();
        while (m_active) wait(m_request_done);
        const sc_time done = sim_now();
        ++m_requests_done;
        m_bytes_reduced += m_cur.desc.bytes;
        m_latency_ns.sample(ns(done - m_cur.posted));
        m_queue_level.change_at(done, -1);
        span("allreduce " + std::to_string(m_cur.desc.bytes) + "B", "comm", m_cur.posted, done);
        nic_msg_ext note = m_cur.desc;
        note.what = nic_msg_ext::op::SEND_DONE;
        tlm::tlm_generic_payload trans;
        trans.set_command(tlm::TLM_WRITE_COMMAND);
        trans.set_data_ptr(nullptr);
        trans.set_data_length(0);
        trans.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        trans.set_extension(&note);
        sc_time delay = sc_core::SC_ZERO_TIME;
        {
            const extension_back back{trans, &note};
            notify->b_transport(trans, delay);
        }
        progress();
    }
}

void fpga_allreduce::check_done() {
    if (m_active && m_sent == m_plan->sends.size() && m_written == m_plan->finals &&
        m_adder_seq == m_seq && m_inject_seq == m_seq && !m_adder_running && !m_inject_running) {
        // Every piece is sent and written back, and both worker threads are through with it.
        m_active = false;
        m_request_done.notify(sc_core::SC_ZERO_TIME);
    }
}

// Step-1 pieces: DMA reads into the Tx FIFO, at most an input FIFO's worth in flight (so the
// reduce steps' operand reads are not queued behind a whole block on PCIe), each holding a
// reserved Tx slot.  New data needs m_inject_free free slots (bubble flow control).
void fpga_allreduce::inject_thread() {
    // A member, not a local: a thread suspended when the run ends is never unwound.
    std::deque<pending>& inflight = m_inflight;
    while (true) {
        while (m_inject_seq == m_seq || !m_active) wait(m_start_inject);
        m_inject_seq = m_seq;
        m_inject_running = true;
        const ring_plan& P = *m_plan;
        std::size_t k = 0;
        while (k < P.step1_sends || !inflight.empty()) {
            const sc_time now = sim_now();
            if (!inflight.empty() && inflight.front().done <= now) {
                pending p = inflight.front();
                inflight.pop_front();
                --m_tx_reserved;
                const std::uint64_t bytes = P.sends[p.index].count * 4;
                m_tx_items.push_back(fifo_item{p.index, bytes, p.done, p.data});
                m_tx_level.change_at(now, static_cast<std::int64_t>(bytes));
                m_tx_changed.notify(sc_core::SC_ZERO_TIME);
                continue;
            }
            if (k < P.step1_sends && tx_free() >= m_inject_free && inflight.size() < m_in_slots) {
                const piece& pc = P.sends[k];
                std::shared_ptr<std::vector<float>> data;
                if (m_functional) data = std::make_shared<std::vector<float>>(pc.count);
                const sc_time done =
                    dma(tlm::TLM_READ_COMMAND, m_cur.desc.host_addr + pc.offset * 4, pc.count * 4,
                        now, data ? reinterpret_cast<unsigned char*>(data->data()) : nullptr);
                ++m_tx_reserved;
                inflight.push_back(pending{k, done, data});
                ++k;
                continue;
            }
            if (!inflight.empty()) {
                wait(inflight.front().done - now);
            } else {
                wait(m_tx_changed);
            }
        }
        m_inject_running = false;
        check_done();
    }
}

void fpga_allreduce::adder_thread() {
    std::deque<operand>& input = m_input;  // the input FIFO: local operands of reduce steps
    std::vector<bool>& requested = m_requested;
    while (true) {
        while (m_adder_seq == m_seq || !m_active) wait(m_start_adder);
        m_adder_seq = m_seq;
        m_adder_running = true;
        const ring_plan& P = *m_plan;
        const std::uint32_t seq = static_cast<std::uint32_t>(m_seq & 0xFFFFFFFFu);
        input.clear();
        requested.assign(P.recvs.size(), false);
        for (std::size_t done = 0; done < P.recvs.size(); ++done) {
            while (m_rx.empty()) wait(m_rx_changed);
            wait_until(m_rx.front().arrived);
            // The previous card interleaves its step-1 pieces with the pieces it forwards, so
            // pieces arrive in its Tx order, not in round order: each names its receive.
            // Local operands are read into the input FIFO as soon as a reduce piece's header is
            // in the Rx FIFO, as far as the input FIFO has room.
            for (const rx_item& q : m_rx) {
                if (input.size() >= m_in_slots) break;
                if (q.seq != seq || q.index >= P.recvs.size()) break;
                if (q.arrived > sim_now()) break;  // header not here yet
                const piece& pq = P.recvs[q.index];
                if (!pq.reduce || requested[q.index]) continue;
                requested[q.index] = true;
                std::shared_ptr<std::vector<float>> data;
                if (m_functional) data = std::make_shared<std::vector<float>>(pq.count);
                const sc_time issue = std::max(sim_now(), q.arrived);
                const sc_time ready =
                    dma(tlm::TLM_READ_COMMAND, m_cur.desc.host_addr + pq.offset * 4, pq.count * 4,
                        issue, data ? reinterpret_cast<unsigned char*>(data->data()) : nullptr);
                m_in_level.change_at(ready, static_cast<std::int64_t>(pq.count * 4));
                input.push_back(operand{q.index, ready, data});
            }
            const rx_item& rx = m_rx.front();
            if (rx.seq != seq || rx.index >= P.recvs.size()) {
                throw sim_error(path() + ": expected a piece of request " + std::to_string(m_seq) +
                                " from the previous card, got piece " + std::to_string(rx.index) +
                                " of request " + std::to_string(rx.seq) +
                                " (the cards' requests differ)");
            }
            const std::size_t i = rx.index;
            const piece& pc = P.recvs[i];
            auto op = input.begin();
            if (pc.reduce) {
                while (op != input.end() && op->index != i) ++op;
                if (op == input.end()) {
                    throw sim_error(path() + ": no input-FIFO operand for piece " +
                                    std::to_string(i));
                }
            }
            sc_time start = std::max(sim_now(), rx.arrived);
            if (pc.reduce) start = std::max(start, op->ready);
            wait_until(start);
            // Back-pressure: the result needs room where it goes.
            while ((pc.forward && tx_free() < 1) ||
                   (pc.final && m_out_fifo.size() >= m_out_slots)) {
                wait(m_tx_changed | m_out_changed);
            }
            const std::uint64_t cycles = (pc.count + m_lanes - 1) / m_lanes;
            const sc_time busy = ps_time(m_clock.period().ps * cycles);
            const timed_resource::slot s = m_lanes_busy.reserve(sim_now(), busy);
            m_step_level.change_at(s.start, static_cast<std::int64_t>(pc.step) -
                                                static_cast<std::int64_t>(m_step_now));
            m_step_now = pc.step;
            const sc_time end = s.end + ps_time(m_adder_latency.ps);
            if (pc.forward) ++m_tx_reserved;

            std::shared_ptr<std::vector<float>> result;
            if (m_functional) {
                result = std::make_shared<std::vector<float>>(pc.count);
                const std::size_t n = static_cast<std::size_t>(pc.count);
                if (!rx.data) throw sim_error(path() + ": functional piece without data");
                if (m_bfp) {
                    m_bfp->decode(rx.data->data(), rx.data->size(), result->data(), n);
                } else {
                    std::memcpy(result->data(), rx.data->data(), n * 4);
                }
                if (pc.reduce) {
                    const std::vector<float>& local = *op->data;
                    for (std::size_t e = 0; e < n; ++e) (*result)[e] += local[e];
                }
                if (m_bfp && pc.reduce && pc.final) {
                    // The card that completes a block keeps what the others will decode: the
                    // block as it goes out in BFP, so every card ends with the same values.
                    std::vector<std::uint8_t> wire;
                    m_bfp->encode(result->data(), n, wire);
                    m_bfp->decode(wire.data(), wire.size(), result->data(), n);
                }
            }
            wait_until(end);
            m_adds += pc.count;
            const std::uint64_t bytes = pc.count * 4;
            m_rx_level.change_at(end, -static_cast<std::int64_t>(rx.bytes));
            m_rx.pop_front();
            if (pc.reduce) {
                m_in_level.change_at(end, -static_cast<std::int64_t>(bytes));
                input.erase(op);
            }
            if (pc.forward) {
                --m_tx_reserved;
                m_tx_items.push_back(fifo_item{P.send_of_recv[i], bytes, end, result});
                m_tx_level.change_at(end, static_cast<std::int64_t>(bytes));
                m_tx_changed.notify(sc_core::SC_ZERO_TIME);
            }
            if (pc.final) {
                m_out_fifo.push_back(fifo_item{i, bytes, end, result});
                m_out_level.change_at(end, static_cast<std::int64_t>(bytes));
                m_out_changed.notify(sc_core::SC_ZERO_TIME);
            }
            // The Rx slot is free again: its credit goes back to the previous card (the Tx
            // thread sends credits ahead of data).
            m_credit_out.push_back(end);
            m_credit_out_changed.notify(sc_core::SC_ZERO_TIME);
        }
        m_step_level.change_at(sim_now(), -static_cast<std::int64_t>(m_step_now));
        m_step_now = 0;
        m_adder_running = false;
        check_done();
    }
}

// One MAC, two kinds of frames: credits for the previous card go first (they are small and
// the previous card may be waiting for them); a data piece needs a credit of the next card.
void fpga_allreduce::tx_thread() {
    sc_time asked;
    bool asking = false;
    while (true) {
        const sc_time now = sim_now();
        if (!m_credit_out.empty()) {
            const sc_time ready = std::max(now, m_credit_out.front());
            m_credit_out.pop_front();
            packet_ext credit;
            credit.src = static_cast<std::uint32_t>(m_node_id);
            credit.dst = static_cast<std::uint32_t>((m_node_id + m_ring_size - 1) % m_ring_size);
            credit.tag = k_credit_tag;
            credit.wire = static_cast<std::uint32_t>(min_wire());
            send_frame(credit, ready);
            ++m_credit_frames;
            continue;
        }
        if (m_tx_items.empty()) {
            wait(m_tx_changed | m_credit_out_changed);
            continue;
        }
        std::size_t pos = 0;
        if (m_service_order == tx_order::ROUNDS) {
            // Lockstep: the next send in round order, once it is in the FIFO.
            pos = m_tx_items.size();
            for (std::size_t k = 0; k < m_tx_items.size(); ++k) {
                if (m_tx_items[k].index == m_sent) pos = k;
            }
            if (pos == m_tx_items.size()) {
                wait(m_tx_changed | m_credit_out_changed);
                continue;
            }
        } else {
            // Ring traffic first: a forwarded piece is on the ring's critical chain (the next
            // card forwards it in turn); step-1 pieces fill the gaps.
            for (std::size_t k = 0; k < m_tx_items.size(); ++k) {
                if (m_plan->sends[m_tx_items[k].index].step > 1 && m_tx_items[k].ready <= now) {
                    pos = k;
                    break;
                }
            }
        }
        if (!asking) {
            asking = true;
            asked = now;
        }
        if (m_credits_free > 0) {
            --m_credits_free;
        } else if (!m_credits.empty() && m_credits.front() <= now) {
            m_credits.pop_front();
        } else if (!m_credits.empty()) {
            wait(m_credits.front() - now, m_credit_out_changed);
            continue;
        } else {
            wait(m_credit_changed | m_credit_out_changed);
            continue;
        }
        asking = false;
        m_credit_wait_ns.sample(ns(now - asked));
        send_data(pos);
    }
}

void fpga_allreduce::send_data(std::size_t pos) {
    const fifo_item it = m_tx_items[pos];
    const piece& pc = m_plan->sends[it.index];
    packet_ext ext;
    ext.src = static_cast<std::uint32_t>(m_node_id);
    ext.dst = static_cast<std::uint32_t>((m_node_id + 1) % m_ring_size);
    ext.tag = static_cast<std::uint32_t>(m_seq & 0xFFFFFFFFu);
    ext.seq = static_cast<std::uint32_t>(it.index);
    ext.msg_id = m_seq;
    ext.msg_bytes = it.bytes;
    ext.raw_payload = static_cast<std::uint32_t>(it.bytes);
    ext.payload = static_cast<std::uint32_t>(encoded_bytes(pc.count));
    ext.compressed = m_bfp != nullptr;
    ext.wire = static_cast<std::uint32_t>(transfer_wire(ext.payload));
    if (it.data) {
        auto bytes = std::make_shared<std::vector<std::uint8_t>>();
        if (m_bfp) {
            m_bfp->encode(it.data->data(), it.data->size(), *bytes);
        } else {
            bytes->resize(it.data->size() * 4);
            std::memcpy(bytes->data(), it.data->data(), bytes->size());
        }
        ext.data = bytes;
    }
    send_frame(ext, it.ready);
    ++m_tx_frames;
    m_tx_payload += ext.payload;
    // The piece leaves the Tx FIFO as the MAC sends it; its slot is free at the end.
    wait_until(m_link_free);
    // Only this thread removes items, and others only append: pos still names the piece.
    m_tx_items.erase(m_tx_items.begin() + static_cast<std::ptrdiff_t>(pos));
    m_tx_level.change_at(m_link_free, -static_cast<std::int64_t>(it.bytes));
    m_tx_changed.notify(sc_core::SC_ZERO_TIME);
    ++m_sent;
    check_done();
}

void fpga_allreduce::output_thread() {
    while (true) {
        while (m_out_fifo.empty()) wait(m_out_changed);
        const fifo_item it = m_out_fifo.front();
        const piece& pc = m_plan->recvs[it.index];
        const sc_time done =
            dma(tlm::TLM_WRITE_COMMAND, m_cur.desc.host_addr + pc.offset * 4, it.bytes, it.ready,
                it.data ? reinterpret_cast<unsigned char*>(it.data->data()) : nullptr);
        wait_until(done);
        m_out_fifo.pop_front();
        m_out_level.change_at(done, -static_cast<std::int64_t>(it.bytes));
        m_out_changed.notify(sc_core::SC_ZERO_TIME);
        ++m_written;
        check_done();
    }
}

std::string fpga_allreduce::pending_work() const {
    if (!m_active && m_requests.empty()) return {};
    std::string w;
    if (m_active) {
        w = "request " + std::to_string(m_seq) + " (" + std::to_string(m_cur.desc.bytes) +
            " B): " + std::to_string(m_sent) + " of " + std::to_string(m_plan->sends.size()) +
            " pieces sent, " + std::to_string(m_written) + " of " + std::to_string(m_plan->finals) +
            " written back; FIFOs rx " + std::to_string(m_rx.size()) + ", tx " +
            std::to_string(m_tx_items.size()) + ", output " + std::to_string(m_out_fifo.size()) +
            "; credits " + std::to_string(m_credits_free + m_credits.size());
    }
    if (!m_requests.empty()) {
        if (!w.empty()) w += "; ";
        w += std::to_string(m_requests.size()) + " request(s) queued";
    }
    return w;
}

void fpga_allreduce::end_of_run() {
    const sc_time now = sim_now();
    m_adder_busy_ns.set(static_cast<double>(m_lanes_busy.busy_ps()) / 1000.0);
    m_adder_util.set(m_lanes_busy.utilisation(now));
    m_link_util.set(m_mac.utilisation(now));
}

TRAINVP_REGISTER_IP(fpga_allreduce, "fpga.allreduce");

}  // namespace trainvp::ip
