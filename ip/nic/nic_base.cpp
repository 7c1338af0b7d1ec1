#include "ip/nic/nic_base.h"

#include <algorithm>
#include <tuple>
#include <vector>

#include "kit/sim_time.h"

namespace trainvp::ip {

nic_base::nic_base(const sc_core::sc_module_name& name, const params& p) : ip_module(name, p) {
    p.apply(*this, common_params());
    check(p, path());
    const config_node* rx = p.find("rx_buffer");
    if (rx == nullptr) rx = p.find("rx_region");
    m_rx_loc = rx != nullptr ? rx->loc() : p.where();
    dma_channel::settings s;
    s.burst = m_dma_burst.bytes;
    s.outstanding = m_dma_outstanding;
    m_dma.configure(s);
    dma_channel::settings bulk;
    // Large bursts, enough of them in flight to cover the path's latency; each burst is one
    // transaction to the target (and the timing-mode scratch buffer is one burst).
    bulk.burst = 64 * 1024;
    bulk.outstanding = 16;
    m_dma_bulk.configure(bulk);
    m_message_level = ctx().settings().grain != granularity::PACKET;
    host.register_b_transport(this, &nic_base::host_b_transport);
    eth_rx.register_b_transport(this, &nic_base::rx_b_transport);
    start_engine(m_tx_step, [this] { tx_step(); });
    m_tx_step.hot_state(&m_tx, sizeof(m_tx));
}

const std::vector<param_decl>& nic_base::common_params() {
    static const std::vector<param_decl> decls = [] {
        type_info info;
        type_decl<nic_base> d(info);
        declare_common(d);
        return d.params();
    }();
    return decls;
}

nic_base::~nic_base() {
    m_wire_trans.clear_extension<packet_ext>();
    m_notify_trans.clear_extension<nic_msg_ext>();
}

void nic_base::host_b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
    nic_msg_ext* ext = nullptr;
    trans.get_extension(ext);
    if (ext == nullptr || ext->what != nic_msg_ext::op::SEND) {
        trans.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
        return;
    }
    const sc_core::sc_time posted = sim_now() + delay;
    m_tx_queue.push_back(message{*ext, posted});
    m_tx_queue_level.change_at(posted, +1);
    m_tx_step.wake(delay);
    trans.set_response_status(tlm::TLM_OK_RESPONSE);
}

sc_core::sc_time nic_base::run_dma(dma_channel& ch, tlm::tlm_command cmd, std::uint64_t addr,
                                   std::uint64_t bytes, const sc_core::sc_time& start) {
    dma_channel::result r = ch.run(*pcie.operator->(), cmd, addr, bytes, start);
    if (!r.ok) {
        throw sim_error(path() + ": DMA " + (cmd == tlm::TLM_READ_COMMAND ? "read" : "write") +
                        " of " + std::to_string(bytes) + " B at " + std::to_string(addr) +
                        " failed: " + r.error);
    }
    progress_until(r.done);
    return r.done;
}

sc_core::sc_time nic_base::dma(tlm::tlm_command cmd, std::uint64_t addr, std::uint64_t bytes,
                               const sc_core::sc_time& start) {
    if (bytes == 0) return start;
    return run_dma(m_dma, cmd, addr, bytes, start);
}

sc_core::sc_time nic_base::bulk_dma(tlm::tlm_command cmd, std::uint64_t addr, std::uint64_t bytes,
                                    const sc_core::sc_time& start) {
    if (bytes == 0) return start;
    const sc_core::sc_time done = run_dma(m_dma_bulk, cmd, addr, bytes, start);
    m_dma.bursts += frame_bursts(bytes);
    m_dma.bytes_moved += bytes;
    return done;
}

std::uint64_t nic_base::frame_bursts(std::uint64_t bytes) const {
    // Frames of frame_payload() bytes (the last one shorter), each moved in bursts of dma_burst.
    const std::uint64_t b = m_dma_burst.bytes;
    const std::uint64_t full = bytes / frame_payload(), rest = bytes % frame_payload();
    return full * ((frame_payload() + b - 1) / b) + (rest + b - 1) / b;
}

void nic_base::train_wire(tx_frame& f) const {
    const std::uint64_t n = f.ext.train;
    const std::uint64_t head = frame_wire(n > 1 ? frame_payload() : f.ext.payload);
    const std::uint64_t tail = frame_wire(n > 1 ? f.tail_raw : f.ext.payload);
    f.ext.wire = static_cast<std::uint32_t>(n > 1 ? (n - 1) * head + tail : head);
    f.ext.head_wire = static_cast<std::uint32_t>(head);
    f.ext.tail_wire = static_cast<std::uint32_t>(tail);
}

sc_core::sc_time nic_base::tx_process_train(tx_frame& f) {
    train_wire(f);
    f.tail_processed = f.tail_ready;
    return f.ready;
}

sc_core::sc_time nic_base::put_on_wire(const packet_ext& frame, bool& delivered) {
    // Members, not locals: no allocation per frame, and nothing heap-owning on the TX thread's
    // stack should the link ever hold it (a stopped run never unwinds a thread).
    tlm::tlm_generic_payload& trans = m_wire_trans;
    trans.set_command(tlm::TLM_WRITE_COMMAND);
    trans.set_address(0);
    trans.set_data_ptr(nullptr);
    trans.set_data_length(frame.wire);
    trans.set_streaming_width(frame.wire);
    trans.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    m_wire_ext = frame;
    trans.set_extension(&m_wire_ext);
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    eth_tx->b_transport(trans, delay);
    // A stage that dropped the frame (a link down or a corrupted frame, a full switch queue)
    // marks it; the sender learns it (README, "Retransmission": the timer stands for the
    // missing acknowledgement).
    delivered = trans.is_response_ok() && !m_wire_ext.dropped;
    trans.clear_extension(&m_wire_ext);
    m_wire_ext.data.reset();
    return sim_now() + delay;
}

// The TX engine is an event-driven engine (kit/wake_queue.h), not a thread: it prepares a
// message's frames (or trains) one at a time and sleeps until each one's first bit, keeping its
// place in m_tx (no thread stack to switch to, which at scale is what a message costs most;
// docs/performance.md).
void nic_base::tx_step() {
    const sc_core::sc_time now = sim_now();  // an engine's activation takes no time
    while (true) {
        if (!m_tx.active) {
            if (m_tx_queue.empty()) {
                m_tx_step.park();
                return;
            }
            const sc_core::sc_time posted = m_tx_queue.front().posted;
            if (posted > now) {
                m_tx_step.sleep_until(posted);
                return;
            }
            begin_message();
        }
        if (m_tx.prepared) send_prepared();
        if (m_tx.k == m_tx.frames && m_tx.lost.empty()) {
            end_message();
            continue;
        }
        prepare_next();
        if (m_tx.eng.start > now) {
            m_tx_step.sleep_until(m_tx.eng.start);
            return;
        }
    }
}

// Frames are fetched by DMA up to tx_prefetch ahead of the MAC and handed to the link at the
// time they are ready, so that frames of different senders reach a shared switch port in time
// order.
void nic_base::fill_header(packet_ext& e, const nic_msg_ext& d, std::uint64_t k,
                           std::uint64_t frames, std::uint64_t len) const {
    e.src = static_cast<std::uint32_t>(m_node_id);
    e.dst = d.peer;
    e.tag = d.tag;
    e.tos = d.tos;
    e.msg_id = d.msg_id;
    e.seq = static_cast<std::uint32_t>(k);
    e.frames = static_cast<std::uint32_t>(frames);
    e.msg_bytes = d.bytes;
    e.payload = static_cast<std::uint32_t>(len);
    e.raw_payload = static_cast<std::uint32_t>(len);
}

sc_core::sc_time nic_base::engine_time(std::uint64_t wire, std::uint64_t raw) const {
    const std::uint64_t own =
        units::bandwidth{m_rate.bytes_per_s * m_efficiency}.transfer_time(wire).ps;
    if (m_tx.pace <= 0.0) return ps_time(own);
    // The host's software cannot hand the bytes over faster (host.cpu stack.send_rate).
    return ps_time(std::max(own, units::bandwidth{m_tx.pace}.transfer_time(raw).ps));
}

void nic_base::begin_message() {
    tx_run& r = m_tx;
    const message& m = m_tx_queue.front();
    const nic_msg_ext& d = m.desc;
    r.active = true;
    r.prepared = false;
    r.per_frame = frame_payload();
    r.frames = frames(d.bytes);
    r.start = m.posted + ps_time(m_message_cost.ps);
    // Message granularity: the message goes as trains of consecutive frames, one transaction
    // each (README, "Message granularity"); a message with data (functional mode) goes frame
    // by frame, as its frames' contents are processed one by one.
    // With faults declared on a link, frame by frame: each frame meets them on its own
    // (ip/ethernet/README.md, "Faults").
    r.trains = m_message_level && !d.data && sends_trains() && !ctx().frame_faults();
    r.lost.clear();
    r.resend = false;
    if (!r.trains) {
        // Per-frame times of the packet-level loop.
        r.fetched.assign(static_cast<std::size_t>(r.frames), sc_core::SC_ZERO_TIME);
        r.sent.assign(static_cast<std::size_t>(r.frames), sc_core::SC_ZERO_TIME);
    }
    r.k = 0;
    r.next_fetch = 0;
    r.link_free = sc_core::SC_ZERO_TIME;
    r.last_end = r.start;
    r.sent_bytes = 0;
    r.pace = d.pace_bytes_per_s;
    // At most train_frames frames a train (README, "Message granularity"), and a train's wire
    // bytes below 2^31 (packet_ext::wire is 32 bits).
    r.max_train = std::min<std::uint64_t>(
        m_train_frames,
        std::max<std::uint64_t>(1, (std::uint64_t{1} << 31) / frame_wire(r.per_frame)));
    m_tx_messages_flow.enter(d.bytes);
    m_tx_active_frames = r.frames;
}

void nic_base::prepare_next() {
    using sc_core::sc_time;
    tx_run& r = m_tx;
    const nic_msg_ext& d = m_tx_queue.front().desc;
    if (!r.lost.empty()) {
        // A resend goes ahead of the next new frame once it is due (checked between frames),
        // and after the message's last frame the resends follow at their times.
        sc_time due = r.lost.front().due;
        for (const tx_run::lost_frame& l : r.lost) due = std::min(due, l.due);
        if (r.k == r.frames || due <= sim_now()) {
            prepare_resend();
            return;
        }
    }
    tx_frame& f = r.f;
    f = tx_frame{};
    r.resend = false;
    if (r.trains) {
        const std::uint64_t n = std::min(r.frames - r.k, r.max_train);
        const std::uint64_t off = r.k * r.per_frame;
        const std::uint64_t len = std::min(d.bytes - std::min(d.bytes, off), n * r.per_frame);
        const std::uint64_t head_len = std::min(r.per_frame, len);
        // The head frame is fetched as at packet level, the rest as one transfer behind it.  As
        // at packet level, the next train's head is fetched once the frame tx_prefetch before
        // it has left: the previous train's last frames leave one engine time apart up to its
        // end (link_free).
        sc_time slot = r.start;
        if (r.k > 0) {
            const sc_time ahead =
                ps_time(engine_time(frame_wire(r.per_frame), r.per_frame).value() * m_tx_prefetch);
            if (r.link_free > ahead) slot = std::max(slot, r.link_free - ahead);
            slot = std::max(slot, sim_now());
        }
        const sc_time head_in = dma(tlm::TLM_READ_COMMAND, d.host_addr + off, head_len, slot);
        const sc_time tail_in = std::max(
            head_in,
            bulk_dma(tlm::TLM_READ_COMMAND, d.host_addr + off + head_len, len - head_len, slot));
        fill_header(f.ext, d, r.k, r.frames, len);
        f.ext.train = static_cast<std::uint32_t>(n);
        f.ready = head_in + ps_time(m_tx_frame_cost.ps);
        f.tail_ready = tail_in + ps_time(m_tx_frame_cost.ps);
        f.tail_raw = len - (n - 1) * r.per_frame;
        m_tx_frames_flow.enter(len);
        sc_time processed;
        if (n > 1) {
            processed = tx_process_train(f);
        } else {
            processed = tx_process(f);
            f.tail_processed = processed;
            train_wire(f);
        }
        // The engine streams the train: its head leaves as a frame would, its tail no earlier
        // than the last frame's own time after that frame is processed.
        r.eng = m_tx_engine.reserve(std::max(processed, r.link_free), engine_time(f.ext.wire, len));
        r.last_bit =
            std::max(r.eng.end, f.tail_processed + engine_time(f.ext.tail_wire, f.tail_raw));
        m_tx_engine.block_until(r.last_bit);
        f.ext.first_bit_ps = r.eng.start.value();
        f.ext.last_bit_ps = r.last_bit.value();
        f.ext.head_last_bit_ps = (r.eng.start + engine_time(f.ext.head_wire, head_len)).value();
    } else {
        // Fetch ahead: frame j may be fetched once frame j - prefetch has left the NIC.
        while (r.next_fetch < r.frames && r.next_fetch < r.k + m_tx_prefetch) {
            const std::uint64_t j = r.next_fetch;
            sc_time slot = r.start;
            if (j >= m_tx_prefetch) slot = std::max(slot, r.sent[j - m_tx_prefetch]);
            const std::uint64_t off = j * r.per_frame;
            const std::uint64_t len = std::min(r.per_frame, d.bytes - std::min(d.bytes, off));
            r.fetched[j] = dma(tlm::TLM_READ_COMMAND, d.host_addr + off, len, slot);
            ++r.next_fetch;
        }
        const std::uint64_t off = r.k * r.per_frame;
        const std::uint64_t len = std::min(r.per_frame, d.bytes - std::min(d.bytes, off));
        fill_header(f.ext, d, r.k, r.frames, len);
        f.ext.data = d.data;
        f.ready = r.fetched[r.k] + ps_time(m_tx_frame_cost.ps);
        m_tx_frames_flow.enter(len);
        const sc_time processed = tx_process(f);
        f.ext.wire = static_cast<std::uint32_t>(frame_wire(f.ext.payload));
        // The NIC engine streams the frame at rate x efficiency (and no faster than the host's
        // pacing rate); the link may start as soon as the engine does (its first bit) and
        // cannot finish before the engine (its last bit).
        r.eng = m_tx_engine.reserve(std::max(processed, r.link_free),
                                    engine_time(f.ext.wire, f.ext.raw_payload));
        f.ext.first_bit_ps = r.eng.start.value();
        f.ext.last_bit_ps = r.eng.end.value();
    }
    r.prepared = true;
}

void nic_base::prepare_resend() {
    using sc_core::sc_time;
    tx_run& r = m_tx;
    const nic_msg_ext& d = m_tx_queue.front().desc;
    std::size_t pick = 0;
    for (std::size_t i = 1; i < r.lost.size(); ++i)
        if (r.lost[i].due < r.lost[pick].due) pick = i;
    const tx_run::lost_frame l = r.lost[pick];
    r.lost.erase(r.lost.begin() + static_cast<std::ptrdiff_t>(pick));
    tx_frame& f = r.f;
    f = tx_frame{};
    // The frame as first sent: its payload read again from host memory (the sender keeps it
    // until it is acknowledged), the per-frame cost, the engine, the wire.  The stack's
    // per-message and per-byte costs are not paid again: a kernel resends the segment it
    // holds (net/ipv4/tcp_output.c, tcp_retransmit_skb), with no new system call or copy.
    const std::uint64_t off = l.k * r.per_frame;
    const std::uint64_t len = std::min(r.per_frame, d.bytes - std::min(d.bytes, off));
    fill_header(f.ext, d, l.k, r.frames, len);
    f.ext.data = d.data;
    f.ready = dma(tlm::TLM_READ_COMMAND, d.host_addr + off, len, std::max(l.due, sim_now())) +
              ps_time(m_tx_frame_cost.ps);
    m_tx_frames_flow.enter(len);
    const sc_time processed = tx_process(f);
    f.ext.wire = static_cast<std::uint32_t>(frame_wire(f.ext.payload));
    // At the engine's own rate: no pacing by the host's software, which does not copy again.
    const sc_time stream =
        ps_time(units::bandwidth{m_rate.bytes_per_s * m_efficiency}.transfer_time(f.ext.wire).ps);
    r.eng = m_tx_engine.reserve(std::max(processed, r.link_free), stream);
    f.ext.first_bit_ps = r.eng.start.value();
    f.ext.last_bit_ps = r.eng.end.value();
    r.resend = true;
    r.resend_attempt = l.attempt;
    r.prepared = true;
}

void nic_base::lost(std::uint64_t first, std::uint64_t count, const sc_core::sc_time& left,
                    unsigned attempt) {
    // RFC 6298 §5.5: the timer doubles for each further loss, up to TCP_RTO_MAX (120 s).
    const std::uint64_t cap = 120ull * 1000 * 1000 * 1000 * 1000;
    std::uint64_t rto = m_rto.ps;
    for (unsigned a = 1; a < attempt && rto < cap; ++a) rto *= 2;
    rto = std::min(rto, cap);
    for (std::uint64_t k = first; k < first + count; ++k)
        m_tx.lost.push_back(tx_run::lost_frame{k, left + ps_time(rto), attempt});
    m_tx_lost += count;
    progress_until(left + ps_time(rto));
}

void nic_base::send_prepared() {
    tx_run& r = m_tx;
    tx_frame& f = r.f;
    r.prepared = false;
    bool delivered = false;
    // The link is free for the next frame at the returned time; this frame left at its end.
    r.link_free = put_on_wire(f.ext, delivered);
    const std::uint64_t n = f.ext.train;
    m_tx_resends.sent(n, f.ext.raw_payload, r.resend);
    if (delivered) {
        m_tx_frames_flow.leave(f.ext.raw_payload);
        m_tx_resends.delivered(n, f.ext.raw_payload);
        r.sent_bytes += f.ext.raw_payload;
    } else {
        m_tx_frames_flow.drop(f.ext.raw_payload);
        m_tx_resends.dropped(n, f.ext.raw_payload);
    }
    m_tx_payload += f.ext.payload;
    m_tx_wire += f.ext.wire;
    f.ext.data.reset();
    if (r.resend) {
        const sc_core::sc_time left = std::max(r.eng.end, r.link_free);
        ++m_tx_frames;
        ++m_tx_retransmits;
        m_tx_retransmit_bytes += f.ext.raw_payload;
        r.last_end = std::max(r.last_end, left);
        if (!delivered) lost(f.ext.seq, 1, left, r.resend_attempt + 1);
        r.resend = false;
        progress_until(left);
        m_tx_active_frames = r.frames - r.k + r.lost.size();
        return;
    }
    if (r.trains) {
        const std::uint64_t n = f.ext.train;
        const sc_core::sc_time left = std::max(r.last_bit, r.link_free);
        r.last_end = std::max(r.last_end, left);
        m_tx_frames += n;
        if (!delivered) lost(r.k, n, left, 1);
        progress_until(left);
        r.k += n;
    } else {
        r.sent[r.k] = std::max(r.eng.end, r.link_free);
        r.last_end = std::max(r.last_end, r.sent[r.k]);
        ++m_tx_frames;
        if (!delivered) lost(r.k, 1, r.sent[r.k], 1);
        progress_until(r.sent[r.k]);
        ++r.k;
    }
    m_tx_active_frames = r.frames - r.k + r.lost.size();
}

void nic_base::end_message() {
    tx_run& r = m_tx;
    // Copied: the host may post its next message from inside notify_host (m_tx_queue grows).
    const sc_core::sc_time posted = m_tx_queue.front().posted;
    nic_msg_ext done = m_tx_queue.front().desc;
    ++m_tx_msgs;
    m_tx_messages_flow.leave(r.sent_bytes);
    m_msg_latency_ns.sample(ns(r.last_end - posted));
    m_tx_queue_level.change_at(r.last_end, -1);
    done.what = nic_msg_ext::op::SEND_DONE;
    done.data.reset();  // the sender's data is unchanged
    tx_message_done(done);
    r.active = false;
    m_tx_queue.pop_front();
    notify_host(done, r.last_end);
    if (spans_on())
        span("send " + std::to_string(done.bytes) + "B to " + std::to_string(done.peer), "comm",
             posted, r.last_end);
}

void nic_base::notify_host(nic_msg_ext& ext, const sc_core::sc_time& at) {
    tlm::tlm_generic_payload& trans = m_notify_trans;  // the host's handler never waits
    trans.set_command(tlm::TLM_WRITE_COMMAND);
    trans.set_data_ptr(nullptr);
    trans.set_data_length(0);
    trans.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    trans.set_extension(&ext);
    const sc_core::sc_time now = sim_now();
    sc_core::sc_time delay = at > now ? at - now : sc_core::SC_ZERO_TIME;
    notify->b_transport(trans, delay);
    trans.clear_extension(&ext);
}

void nic_base::rx_b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
    packet_ext* ext = nullptr;
    trans.get_extension(ext);
    if (ext == nullptr) {
        trans.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
        return;
    }
    const sc_core::sc_time now = sim_now();
    const sc_core::sc_time arrived = ps_time(ext->last_bit_ps);
    m_rx_frames_flow.enter(ext->raw_payload);
    const std::uint32_t n = ext->train;
    m_rx_frames += n;
    m_rx_wire += ext->wire;
    m_rx_payload += ext->payload;

    // The RX engine takes frames one at a time; then the payload is written to host memory.
    // A train (message granularity): its head frame is in at head_last_bit, its last frame at
    // last_bit, and the engine serves the n frames in between.
    packet_ext local = *ext;
    sc_core::sc_time processed, tail_processed;
    if (n > 1) {
        const sc_core::sc_time cost = ps_time(m_rx_frame_cost.ps);
        const sc_core::sc_time head_in = std::min(arrived, ps_time(ext->head_last_bit_ps));
        const timed_resource::slot eng = m_rx_engine.reserve(head_in, cost * n);
        const sc_core::sc_time tail_done = std::max(eng.end, arrived + cost);
        m_rx_engine.block_until(tail_done);
        std::tie(processed, tail_processed) = rx_process_train(local, eng.start + cost, tail_done);
    } else {
        const timed_resource::slot eng = m_rx_engine.reserve(arrived, ps_time(m_rx_frame_cost.ps));
        processed = rx_process(local, eng.end);
        tail_processed = processed;
    }

    // A message that comes whole (one frame, or one train at message granularity) needs no
    // entry in m_rx: one map insertion and erasure fewer per message.
    const bool whole = ext->seq == 0 && n == ext->frames;
    rx_state single;
    rx_state& st = whole ? single : m_rx[{ext->src, ext->msg_id}];
    if (st.received == 0) {
        st.frames = ext->frames;
        st.tag = ext->tag;
        st.data = local.data;  // as rx_process left it (a decompressed copy)
        st.host_addr = m_rx_buffer.bytes + m_rx_offset;
        m_rx_offset = (m_rx_offset + ext->msg_bytes) % m_rx_region.bytes;
    }
    const std::uint64_t off = static_cast<std::uint64_t>(ext->seq) * frame_payload();
    sc_core::sc_time written;
    if (n > 1) {
        // The frames before the last are written as they come in, behind the link: counted
        // (dma_bursts, dma_bytes) but not sent through PCIe and memory, whose busy-until
        // resources serve requests in call order -- one transfer reserved ahead for the whole
        // train would hold the host's own memory traffic behind it for the train's duration.
        // The last frame is written through them, after it is processed.
        const std::uint64_t tail = local.raw_payload - std::uint64_t{n - 1} * frame_payload();
        const std::uint64_t body = local.raw_payload - tail;
        m_dma.bursts += frame_bursts(body);
        m_dma.bytes_moved += body;
        written = std::max(processed, dma(tlm::TLM_WRITE_COMMAND, st.host_addr + off + body, tail,
                                          tail_processed));
    } else {
        written = dma(tlm::TLM_WRITE_COMMAND, st.host_addr + off, local.raw_payload, processed);
    }
    // The receive path's busy time: [frame in, written), counted once where frames overlap.
    {
        const sc_core::sc_time in =
            n > 1 ? std::min(arrived, ps_time(ext->head_last_bit_ps)) : arrived;
        const sc_core::sc_time from = std::max(in, m_rx_path_until);
        if (written > from) {
            m_rx_path_busy_ps += static_cast<double>((written - from).value());
            // As level changes, not busy(): the path is no one resource, so it stays out of
            // the summary's bottlenecks (its engine, PCIe and memory are there).
            m_rx_path_level.change_at(from, +1);
            m_rx_path_level.change_at(written, -1);
            m_rx_path_until = written;
        }
    }
    // The message's first frame is in (its last bit at the NIC; a train's head frame), the
    // same instant at both granularities: the host's software may start taking it.
    if (st.received == 0) {
        st.first = n > 1 ? std::min(arrived, ps_time(ext->head_last_bit_ps)) : arrived;
    }
    st.done = std::max(st.done, written);
    st.bytes += local.raw_payload;
    m_rx_frames_flow.leave(local.raw_payload);
    st.received += n;
    if (st.received == st.frames) {
        nic_msg_ext note;
        note.what = nic_msg_ext::op::RECEIVED;
        note.peer = ext->src;
        note.bytes = ext->msg_bytes;
        note.tag = st.tag;
        note.msg_id = ext->msg_id;
        note.host_addr = st.host_addr;
        note.data = st.data;
        note.first_ps = st.first.value();
        const sc_core::sc_time done = st.done;
        if (!whole) m_rx.erase({ext->src, ext->msg_id});
        ++m_rx_msgs;
        notify_host(note, done);
    }
    // The NIC always takes the frame when it arrives (no RX back-pressure is modelled).
    delay = arrived > now ? arrived - now : sc_core::SC_ZERO_TIME;
    trans.set_response_status(tlm::TLM_OK_RESPONSE);
}

std::string nic_base::pending_work() const {
    std::string w;
    if (!m_tx_queue.empty()) {
        w += std::to_string(m_tx_queue.size()) + " message(s) to send (" +
             std::to_string(m_tx_active_frames) + " frames left of the current one)";
    }
    for (const auto& [key, st] : m_rx) {
        if (!w.empty()) w += "; ";
        w += "message " + std::to_string(key.second) + " from node " + std::to_string(key.first) +
             ": " + std::to_string(st.received) + " of " + std::to_string(st.frames) +
             " frames received";
    }
    return w;
}

void nic_base::audit(audit_log& log) const {
    m_tx_messages_flow.audit(log, path(), "TX messages into frames");
    m_tx_frames_flow.audit(log, path(), "TX frames to the link");
    m_tx_resends.audit(log, path(), "TX payload (retransmission)", m_tx_queue.empty());
    m_rx_frames_flow.audit(log, path(), "RX frames to host memory");
    log.check(path(), "no message left to send", m_tx_queue.empty(),
              std::to_string(m_tx_queue.size()) + " queued");
    log.check(path(), "no message left partly received", m_rx.empty(), pending_work());
}

void nic_base::end_of_run() {
    const sc_core::sc_time now = sim_now();
    m_tx_util.set(m_tx_engine.utilisation(now));
    m_rx_util.set(m_rx_engine.utilisation(now));
    m_rx_path_util.set(now.value() > 0 ? m_rx_path_busy_ps / static_cast<double>(now.value())
                                       : 0.0);
}

void nic_base::validate_peers(const peer_view& peers) const {
    std::string via;
    const ip_module* mem = peers.memory_behind(*this, "pcie", &via);
    const std::uint64_t space = mem == nullptr ? 0 : mem->address_space();
    const std::uint64_t end = m_rx_buffer.bytes + m_rx_region.bytes;
    if (space == 0 || end <= space) return;
    throw input_error(m_rx_loc, path() + ".rx_buffer",
                      "the receive region [rx_buffer, rx_buffer + rx_region) ends at " +
                          std::to_string(end) + " B, beyond " + mem->path() +
                          " (the memory behind " + via + "), which holds " + std::to_string(space) +
                          " B");
}

}  // namespace trainvp::ip
