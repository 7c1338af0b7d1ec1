// What every NIC is built on (inceptionn.md Fig. 8 without the compression engines; the X540
// baseline NIC is nic.basic, this with nothing added: basic_nic.h).
// TX: the host posts a message; the NIC reads its payload from host memory by DMA over PCIe,
// one frame at a time with a prefetch window, pays a per-frame processing cost, and hands each
// frame to the Ethernet link when it is ready.  RX: each frame's payload is written to host
// memory by DMA; when a whole message is in memory the host is notified.  A derived NIC adds
// its stages through the hooks (tx_process, rx_process, ...) and declares the common params
// with declare_common.
#pragma once

#include <map>
#include <utility>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <tlm>

#include "ip/dma/dma_channel.h"
#include "ip/ethernet/framing.h"
#include "ip/ethernet/packet_ext.h"
#include "kit/flat_queue.h"
#include "kit/ip_module.h"
#include "kit/retransmit_tally.h"
#include "kit/timed_resource.h"
#include "workloads/drivers/nic_capabilities.h"

namespace trainvp::ip {

class nic_base : public ip_module, public framing, public nic_capabilities {
public:
    tlm_utils::simple_target_socket<nic_base> host{"host"};
    tlm_utils::simple_initiator_socket<nic_base> notify{"notify"};
    tlm_utils::simple_initiator_socket<nic_base> pcie{"pcie"};
    tlm_utils::simple_initiator_socket<nic_base> eth_tx{"eth_tx"};
    tlm_utils::simple_target_socket<nic_base> eth_rx{"eth_rx"};

    SC_HAS_PROCESS(nic_base);
    // Detaches what a run stopped inside a frame's or a notification's b_transport left in the
    // reused payloads (their destructors would free it).
    ~nic_base() override;
    // pcie: the line rate (received frames go to memory, sent ones come from it, at that rate).
    double socket_rate(const std::string& socket) const override {
        return socket == "pcie" ? m_rate.bytes_per_s : 0.0;
    }
    // The params, sockets, statistics and signals every NIC has; a NIC type's declare() calls
    // it on its own declaration and adds its own.
    template <typename T>
    static void declare_common(type_decl<T>& d);

    std::string pending_work() const override;
    void end_of_run() override;
    void audit(audit_log& log) const override;
    // The receive region [rx_buffer, rx_buffer + rx_region) lies in the memory the NIC's
    // PCIe link writes to (pcie -> its link's host socket).
    void validate_peers(const peer_view& peers) const override;

protected:
    // Applies the params declare_common declares (only those: a derived NIC's own members are
    // not constructed yet, and its constructor applies its params, p.apply(*this)), checks
    // them, configures the DMA and registers the sockets and the TX engine.
    nic_base(const sc_core::sc_module_name& name, const params& p);

    // A frame as the TX path builds it.  Subclasses (the compression NIC) change its payload
    // and add processing time in tx_process / rx_process.
    struct tx_frame {
        packet_ext ext;
        sc_core::sc_time ready;  // payload in the NIC, ready for the engine
        // Message granularity (ext.train > 1 frames in one transaction, all of frame_payload()
        // bytes but the last): when the last frame's payload is in the NIC, its raw payload, and
        // (set by tx_process_train) when it may enter the MAC.
        sc_core::sc_time tail_ready;
        std::uint64_t tail_raw = 0;
        sc_core::sc_time tail_processed;
    };
    // Extra processing of a TX frame between DMA and the MAC; returns when the frame may enter
    // the MAC (default: no extra stage).
    virtual sc_core::sc_time tx_process(tx_frame& f) { return f.ready; }
    // Extra processing of a received frame before its payload is written to host memory;
    // returns when it may be written (default: none).  May change ext.payload.
    virtual sc_core::sc_time rx_process(packet_ext& ext, const sc_core::sc_time& arrived) {
        (void)ext;
        return arrived;
    }

    // Message granularity (simulation.granularity: message): whether this NIC sends a message
    // as one transaction (a train of frames) through the *_train hooks below.  Only NICs whose
    // train hooks do what their per-frame hooks do say so (nic.basic, which adds no stage, and
    // nic.inceptionn); a derived NIC that only has the per-frame hooks keeps sending frame by
    // frame, which stays correct, just not faster.
    virtual bool sends_trains() const { return false; }
    // tx_process for a train: f.ext covers f.ext.train frames.  Sets f.ext.payload (as
    // carried), f.ext.wire, head_wire and tail_wire (the sum and the first and last frame's
    // wire bytes) and f.tail_processed; returns when the head frame may enter the MAC.  The
    // default is no extra stage (train_wire).
    virtual sc_core::sc_time tx_process_train(tx_frame& f);
    // rx_process for a train whose head frame reached the NIC's engine output at `head` and
    // whose last frame at `tail`; returns when each may be written to host memory.
    virtual std::pair<sc_core::sc_time, sc_core::sc_time> rx_process_train(
        packet_ext& ext, const sc_core::sc_time& head, const sc_core::sc_time& tail) {
        (void)ext;
        return {head, tail};
    }
    // Wire fields of an uncompressed train: its frames are full but the last.
    void train_wire(tx_frame& f) const;

    // Called once a message's last frame has left, before the host is told (SEND_DONE).  A
    // compression NIC in functional mode puts the payload as the receivers will see it into
    // done.data (default: nothing changes).
    virtual void tx_message_done(nic_msg_ext& done) { (void)done; }

private:
    // The params declare_common declares, on this class: what the constructor applies.
    static const std::vector<param_decl>& common_params();

    struct message {
        nic_msg_ext desc;
        sc_core::sc_time posted;
    };
    struct rx_state {
        std::uint32_t frames = 0;
        std::uint32_t received = 0;
        std::uint64_t bytes = 0;
        sc_core::sc_time done;
        sc_core::sc_time first;  // the first frame's last bit in
        std::uint64_t host_addr = 0;
        std::uint32_t tag = 0;
        std::shared_ptr<std::vector<std::uint8_t>> data;
    };

    void host_b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
    void rx_b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
    // The TX engine (a wake_queue engine): sends the queued messages in order, frame by frame or as
    // trains, sleeping until each one's first bit.
    void tx_step();
    // Its steps on the message at the queue's front: set up its run, prepare (DMA, processing,
    // the engine's slot) the next frame or train, hand the prepared one to the link, finish.
    void begin_message();
    void prepare_next();
    // Retransmission (README, "Retransmission"): prepares the resend of the lost frame due
    // first; records a frame (or a train's frames) the network dropped.
    void prepare_resend();
    void lost(std::uint64_t first, std::uint64_t count, const sc_core::sc_time& left,
              unsigned attempt);
    void send_prepared();
    void end_message();
    // The engine's time to stream `wire` bytes carrying `raw` payload bytes (before
    // compression) of the current message: wire / (rate x efficiency), and no less than
    // raw / the message's pacing rate (nic_msg_ext::pace_bytes_per_s, the host software's
    // throughput) when it has one.
    sc_core::sc_time engine_time(std::uint64_t wire, std::uint64_t raw) const;
    // The header of frame k of `frames` of message d, carrying `len` payload bytes.
    void fill_header(packet_ext& e, const nic_msg_ext& d, std::uint64_t k, std::uint64_t frames,
                     std::uint64_t len) const;
    void notify_host(nic_msg_ext& ext, const sc_core::sc_time& at);
    // One DMA on channel `ch`; a failed one fails the run naming the NIC.
    sc_core::sc_time run_dma(dma_channel& ch, tlm::tlm_command cmd, std::uint64_t addr,
                             std::uint64_t bytes, const sc_core::sc_time& start);
    sc_core::sc_time dma(tlm::tlm_command cmd, std::uint64_t addr, std::uint64_t bytes,
                         const sc_core::sc_time& start);
    // Message granularity: one DMA transaction for `bytes` (the target still times it per
    // TLP or per byte); the bursts it stands for are counted in dma_bursts as at packet level.
    sc_core::sc_time bulk_dma(tlm::tlm_command cmd, std::uint64_t addr, std::uint64_t bytes,
                              const sc_core::sc_time& start);
    // DMA bursts of `bytes` moved frame by frame (what packet granularity counts).
    std::uint64_t frame_bursts(std::uint64_t bytes) const;
    // Hands one frame or train to the link at its first bit; returns when the link is free.
    sc_core::sc_time put_on_wire(const packet_ext& frame, bool& delivered);

    // params
    std::uint64_t m_node_id = 0;
    units::bandwidth m_rate;
    double m_efficiency = 1.0;
    units::duration m_message_cost;
    units::duration m_tx_frame_cost;
    units::duration m_rx_frame_cost;
    units::data_size m_dma_burst;
    std::uint64_t m_dma_outstanding = 0;
    std::uint64_t m_tx_prefetch = 0;
    std::uint64_t m_train_frames = 0;
    units::duration m_rto;
    units::data_size m_rx_buffer;
    units::data_size m_rx_region;
    source_loc m_rx_loc;  // where rx_buffer (else rx_region, else the block) was given

    bool m_message_level = false;  // simulation.granularity: message
    dma_channel m_dma;
    dma_channel m_dma_bulk;  // one burst per transfer (message granularity)
    timed_resource m_tx_engine;
    timed_resource m_rx_engine;
    flat_queue<message> m_tx_queue;
    wake_queue::engine m_tx_step;  // runs tx_step
    // Where the TX engine is in the message at the queue's front.
    struct tx_run {
        bool active = false;    // the front message is being sent
        bool prepared = false;  // f is ready and waits for its first bit (eng.start)
        bool trains = false;    // sent as trains (message granularity)
        std::uint64_t frames = 0, per_frame = 0, max_train = 0;
        std::uint64_t k = 0;           // the next frame to prepare (or f's first frame)
        std::uint64_t next_fetch = 0;  // packet level: the next frame to fetch
        std::uint64_t sent_bytes = 0;
        double pace = 0.0;  // the message's pacing rate, B/s (0: unpaced)
        sc_core::sc_time start, link_free, last_end;
        // Packet level: when each frame's payload is in the NIC and when it left.
        std::vector<sc_core::sc_time> fetched, sent;
        tx_frame f;
        timed_resource::slot eng;   // f's engine slot
        sc_core::sc_time last_bit;  // a train's last bit
        // Frames the network dropped, each resent at `due` (its sending + the retransmission
        // timeout, doubled per attempt); f is the resend of frame `resend_k` when `resend`.
        struct lost_frame {
            std::uint64_t k = 0;
            sc_core::sc_time due;
            unsigned attempt = 1;
        };
        std::vector<lost_frame> lost;
        bool resend = false;
        unsigned resend_attempt = 0;
    };
    tx_run m_tx;
    std::uint64_t m_rx_offset = 0;
    std::map<std::pair<std::uint32_t, std::uint64_t>, rx_state> m_rx;  // (src, msg id)
    std::uint64_t m_tx_active_frames = 0;
    // Reused for every frame handed to the link and every notification to the host.
    tlm::tlm_generic_payload m_wire_trans;
    packet_ext m_wire_ext;
    tlm::tlm_generic_payload m_notify_trans;

    // For the audit, never reset (bytes are payload before compression): messages into frames
    // on TX, frames handed to the link, frames from the link written to host memory on RX.
    flow_tally m_tx_messages_flow, m_tx_frames_flow, m_rx_frames_flow;
    retransmit_tally m_tx_resends;  // payload bytes before compression
    counter m_tx_lost, m_tx_retransmits, m_tx_retransmit_bytes;
    counter m_tx_msgs, m_tx_frames, m_tx_payload, m_tx_wire;
    counter m_rx_msgs, m_rx_frames, m_rx_payload, m_rx_wire;
    scalar m_tx_util, m_rx_util;
    // The receive path (a frame's last bit in to its payload written in host memory): busy time
    // as the union of those intervals, frames taken in arrival order.
    scalar m_rx_path_util;
    sc_core::sc_time m_rx_path_until;
    double m_rx_path_busy_ps = 0.0;
    traced_level m_rx_path_level{traced_level::style::FLAG};
    distribution m_msg_latency_ns;
    traced_level m_tx_queue_level;
};

template <typename T>
void nic_base::declare_common(type_decl<T>& d) {
    d.param("node_id", &nic_base::m_node_id, "0", "This node's network address (frames' src)")
        .range("0", "2^20");
    d.param("rate", &nic_base::m_rate, "10Gb/s",
            "MAC line rate (inceptionn.md §VII-C: 10 GbE; smartnic.md: 40/100 GbE); must "
            "equal the rate of the link eth_tx and eth_rx are bound to (checked)")
        .range("1Mb/s", "400Gb/s");
    d.param("efficiency", &nic_base::m_efficiency, "1",
            "Sustained fraction of line rate the NIC engine reaches (inceptionn.md §VII-C: the "
            "VC709 reference design reached ~2.1 of 10 Gb/s, i.e. 0.21; the X540 ~1). The "
            "NIC's own limit: a software stack that cannot feed it faster is host.cpu's "
            "stack.send_rate, which paces each message (nic_msg_ext pace)")
        .range("0.001", "1");
    framing::declare(d, framing::spec::tcp_nic());
    d.param("message_cost", &nic_base::m_message_cost, "0ns",
            "Driver cost per message before its first DMA (calibration; 0 = not modelled)")
        .range("0s", "1s");
    d.param("tx_frame_cost", &nic_base::m_tx_frame_cost, "0ns",
            "NIC/driver processing per transmitted frame, pipelined with the MAC (calibration; "
            "0 = not modelled)")
        .range("0s", "1ms");
    d.param("rx_frame_cost", &nic_base::m_rx_frame_cost, "0ns",
            "NIC/driver processing per received frame before its DMA write (calibration; 0 = "
            "not modelled)")
        .range("0s", "1ms");
    d.param("dma_burst", &nic_base::m_dma_burst, "256B",
            "DMA burst size (default: the common PCIe max payload size)")
        .range("32B", "4KiB");
    d.param("dma_outstanding", &nic_base::m_dma_outstanding, "16",
            "DMA bursts in flight per frame transfer")
        .range("1", "1024");
    d.param("tx_prefetch", &nic_base::m_tx_prefetch, "8",
            "Frames whose payload may be fetched ahead of the MAC (TX descriptor ring slots)")
        .range("1", "4096");
    d.param("train_frames", &nic_base::m_train_frames, "128",
            "Message granularity: the most frames a train carries (one transaction through "
            "link and switch).  Trains of senders that meet at a switch port take turns at "
            "this grain, as their frames do at packet level: at 128 the INCEPTIONN "
            "worker-aggregator HDC configs at message level are -1.5 % (wa_hdc) and -0.84 % "
            "(wa_c_hdc) off packet level, at 32 -0.2 % and -0.12 %, with one train per message "
            "-3.5 % and -4.9 % (ip/nic/README.md, \"Message granularity\").  Fewer frames a "
            "train simulate slower")
        .range("1", "4294967295");
    d.param("rto", &nic_base::m_rto, "200ms",
            "Retransmission timeout: a frame the network dropped (a link down or a corrupted "
            "frame, ethernet.link faults; a full switch queue) is resent rto after it left, "
            "the timeout doubling for each further loss of the same frame up to 120 s (RFC "
            "6298 §5.5; TCP_RTO_MAX). Default: Linux's minimum RTO, TCP_RTO_MIN = HZ/5 = "
            "200 ms (include/net/tcp.h), the floor a kernel TCP stack's timer has; "
            "datacenter stacks lower it (IRN, Mittal et al. SIGCOMM'18: 320 us)")
        .range("1ns", "120s");
    d.param("rx_buffer", &nic_base::m_rx_buffer, "1GiB",
            "Host address of the receive buffer region")
        .range("0B", "16TiB");
    d.param("rx_region", &nic_base::m_rx_region, "256MiB",
            "Size of the receive buffer region (messages are written round-robin in it)")
        .range("4KiB", "16GiB");
    d.target("host", &nic_base::host, "nic", "Send requests from the host driver");
    d.initiator("notify", &nic_base::notify, "nic",
                "Notifications to the host: send completed, message received");
    d.initiator("pcie", &nic_base::pcie, "mem", "DMA to and from host memory (over PCIe)");
    d.initiator("eth_tx", &nic_base::eth_tx, "eth", "Frames to the Ethernet link").line_rate =
        "rate";
    d.target("eth_rx", &nic_base::eth_rx, "eth", "Frames from the Ethernet link").line_rate =
        "rate";
    d.stat("tx_messages", &nic_base::m_tx_msgs, "1", "Messages sent");
    d.stat("tx_frames", &nic_base::m_tx_frames, "1", "Frames sent");
    d.stat("tx_payload", &nic_base::m_tx_payload, "B", "Payload bytes sent (as carried)");
    d.stat("tx_wire", &nic_base::m_tx_wire, "B", "Bytes sent on the wire incl. all overhead");
    d.stat("rx_messages", &nic_base::m_rx_msgs, "1", "Messages received completely");
    d.stat("rx_frames", &nic_base::m_rx_frames, "1", "Frames received");
    d.stat("rx_payload", &nic_base::m_rx_payload, "B", "Payload bytes received (as carried)");
    d.stat("rx_wire", &nic_base::m_rx_wire, "B", "Bytes received on the wire");
    d.stat("tx_frames_lost", &nic_base::m_tx_lost, "1",
           "Frames sent that the network dropped (link down, corrupted, switch queue full); "
           "each is resent after rto");
    d.stat("tx_retransmits", &nic_base::m_tx_retransmits, "1",
           "Frames resent (audit: payload sent + resent = delivered + dropped, and every "
           "dropped byte resent)");
    d.stat("tx_retransmit_bytes", &nic_base::m_tx_retransmit_bytes, "B",
           "Payload bytes resent (before compression)");
    d.headline("tx_utilisation", &nic_base::m_tx_util, "1",
               "Time the TX engine was busy / simulated time");
    d.stat("rx_utilisation", &nic_base::m_rx_util, "1",
           "Time the RX engine spent on its per-frame cost (frames x rx_frame_cost) / simulated "
           "time: 0 when rx_frame_cost is 0 (see rx_path_utilisation)");
    d.stat("rx_path_utilisation", &nic_base::m_rx_path_util, "1",
           "Time the receive path held a frame (from its last bit in to its payload written in "
           "host memory: RX engine, then the DMA write over PCIe) / simulated time; overlapping "
           "frames count once");
    d.stat("message_latency", &nic_base::m_msg_latency_ns, "ns",
           "Send request posted to last frame on the wire, per message");
    d.stat_of(
        "dma_bursts", [](const nic_base& n) -> const counter& { return n.m_dma.bursts; }, "1",
        "DMA bursts over PCIe (reads for TX, writes for RX)");
    d.stat_of(
        "dma_bytes", [](const nic_base& n) -> const counter& { return n.m_dma.bytes_moved; }, "B",
        "Bytes moved by DMA");
    d.signal("tx_queue", &nic_base::m_tx_queue_level, "Messages waiting or being sent");
    d.signal_of(
        "tx_busy", [](nic_base& n) -> traced_level& { return n.m_tx_engine.busy_signal(); },
        "1 while the TX engine (MAC) sends a frame");
    d.signal_of(
        "rx_busy", [](nic_base& n) -> traced_level& { return n.m_rx_engine.busy_signal(); },
        "1 while the RX engine spends rx_frame_cost on a frame (never when it is 0)");
    d.signal("rx_path_busy", &nic_base::m_rx_path_level,
             "1 while the receive path holds a frame (its last bit in to its payload in host "
             "memory)");
}

}  // namespace trainvp::ip
