// The FPGA AI smart NIC of smartnic.md §IV-A (Fig. 3a): a card per node on PCIe with an
// Ethernet port to the switch; the cards of a cluster form a logical ring (node_id order) and
// all-reduce gradients the host hands them, without the host's cores.
//
// Inside, per request (host address, byte count), the control FSM follows the pipelined ring
// schedule of workloads/collectives (ring_allreduce with segments: every ring step streamed as
// `segment`-sized pieces):
//   - step 1 sends: the local block is read by DMA over PCIe straight into the Tx FIFO;
//   - every received piece waits in the Rx FIFO; reduce steps read the matching local piece by
//     DMA into the input FIFO and the adder lanes add the two in FP32; copy steps pass through
//     the lanes unchanged;
//   - results go to the Tx FIFO (the next step's send) and/or, once final, to the output FIFO,
//     which DMA writes back to host memory.
// Back-pressure: a stage blocks while its next FIFO is full; the link is flow-controlled by
// credits (one per Rx FIFO segment slot of the next card, returned in small frames as the
// adders drain the Rx FIFO).  New (step-1) data enters the Tx FIFO only while two slots are
// free, data already in the ring needs one (bubble flow control), so the ring cannot deadlock
// with FIFOs smaller than a block.  See README.md in this folder.
#pragma once

#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <tlm>

#include "ip/codecs/bfp_codec.h"
#include "ip/dma/dma_channel.h"
#include "ip/ethernet/framing.h"
#include "ip/ethernet/packet_ext.h"
#include "kit/ip_module.h"
#include "kit/timed_resource.h"
#include "traces/traced_level.h"
#include "workloads/drivers/nic_capabilities.h"

namespace trainvp::ip {

class fpga_allreduce : public ip_module, public framing, public nic_capabilities {
public:
    tlm_utils::simple_target_socket<fpga_allreduce> host{"host"};
    tlm_utils::simple_initiator_socket<fpga_allreduce> notify{"notify"};
    tlm_utils::simple_initiator_socket<fpga_allreduce> pcie{"pcie"};
    tlm_utils::simple_initiator_socket<fpga_allreduce> eth_tx{"eth_tx"};
    tlm_utils::simple_target_socket<fpga_allreduce> eth_rx{"eth_rx"};

    SC_HAS_PROCESS(fpga_allreduce);
    fpga_allreduce(const sc_core::sc_module_name& name, const params& p);
    static void declare(type_decl<fpga_allreduce>& d);
    // pcie: the Ethernet line rate (what the card streams to and from host memory).
    double socket_rate(const std::string& socket) const override {
        return socket == "pcie" ? m_rate.bytes_per_s : 0.0;
    }

    std::string pending_work() const override;
    void end_of_run() override;
    bool takes_allreduce_ops() const override { return true; }
    // The ring's cards: every position 0..ring_size-1 is one fpga.allreduce card of the
    // platform with this ring_size, so that each card's successor exists.
    void validate_peers(const peer_view& peers) const override;

    // Credit frames carry this tag (data frames carry the request's sequence number).
    static constexpr std::uint32_t k_credit_tag = 0xFFFFFFFFu;

private:
    struct request {
        nic_msg_ext desc;
        sc_core::sc_time posted;
    };
    // One piece of a ring step, as the FSM plans it.
    struct piece {
        std::uint64_t offset = 0;  // elements
        std::uint64_t count = 0;
        std::uint32_t step = 0;  // ring step 1 .. 2(N-1)
        bool reduce = false;     // RECV: add into the local value (else overwrite)
        bool forward = false;    // RECV: the result is the next step's send
        bool final = false;      // RECV: the result is the all-reduced value: write it back
    };
    struct fifo_item {
        std::size_t index = 0;  // into m_sends (Tx) or m_recvs (Rx, output)
        std::uint64_t bytes = 0;
        sc_core::sc_time ready;                    // when it is in the FIFO
        std::shared_ptr<std::vector<float>> data;  // functional mode
    };

    void host_b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
    void rx_b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);

    void ctrl_thread();
    void inject_thread();
    void adder_thread();
    void tx_thread();
    void output_thread();

    void check_done();
    void wait_until(const sc_core::sc_time& t);
    sc_core::sc_time dma(tlm::tlm_command cmd, std::uint64_t addr, std::uint64_t bytes,
                         const sc_core::sc_time& start, unsigned char* data);
    void send_frame(packet_ext& ext, const sc_core::sc_time& ready);
    void send_data(std::size_t pos);
    std::uint64_t encoded_bytes(std::uint64_t elements) const;
    std::size_t tx_free() const { return m_tx_slots - m_tx_items.size() - m_tx_reserved; }

    // Params.
    std::uint64_t m_node_id = 0;
    std::uint64_t m_ring_size = 0;
    source_loc m_ring_size_loc, m_node_id_loc;
    units::bandwidth m_rate;
    std::uint64_t m_lanes = 0;
    units::frequency m_clock;
    units::duration m_adder_latency;
    units::data_size m_segment;
    units::data_size m_input_fifo, m_rx_fifo, m_tx_fifo, m_output_fifo;
    units::data_size m_dma_burst;
    std::uint64_t m_dma_outstanding = 0;
    enum class compression { NONE, BFP };
    enum class tx_order { INTERLEAVED, ROUNDS };
    tx_order m_service_order = tx_order::INTERLEAVED;
    compression m_compression = compression::NONE;
    std::uint64_t m_bfp_block = 0;
    std::uint64_t m_bfp_exponent_bits = 0;
    std::uint64_t m_bfp_mantissa_bits = 0;
    bool m_functional = false;

    std::unique_ptr<codecs::codec> m_bfp;  // "bfp", from codecs::codec_registry
    std::size_t m_rx_slots = 0, m_tx_slots = 0, m_in_slots = 0, m_out_slots = 0;
    std::size_t m_inject_free = 2;  // free Tx slots new data needs
    dma_channel m_dma;
    timed_resource m_lanes_busy;
    timed_resource m_mac;
    sc_core::sc_time m_link_free;

    // Requests and the current one's plan.
    std::deque<request> m_requests;
    sc_core::sc_event m_request_posted;
    bool m_active = false;
    std::uint64_t m_seq = 0;  // sequence number of the current request
    request m_cur;
    // The FSM's plan of one request size (cached: a training run repeats sizes).
    struct ring_plan {
        std::vector<piece> sends;
        std::vector<piece> recvs;
        std::vector<std::size_t> send_of_recv;  // the send a forwarding receive feeds
        std::size_t step1_sends = 0;            // sends[0, step1_sends) carry local data
        std::size_t finals = 0;
        std::size_t pieces_per_step = 0;  // the most pieces any step sends
    };
    std::map<std::uint64_t, ring_plan> m_plans;  // by element count
    const ring_plan& plan(std::uint64_t count);
    const ring_plan* m_plan = nullptr;
    std::size_t m_sent = 0, m_written = 0;
    bool m_inject_running = false, m_adder_running = false;
    sc_core::sc_time m_last_event;
    sc_core::sc_event m_start_inject, m_start_adder, m_request_done;
    std::uint64_t m_inject_seq = 0, m_adder_seq = 0;  // requests each thread has started

    // FIFOs (between the threads).  Rx holds frames that arrived, in order.
    struct rx_item {
        std::uint64_t seq = 0;
        std::uint32_t index = 0;
        std::uint64_t bytes = 0;  // raw fp32 bytes
        sc_core::sc_time arrived;
        std::shared_ptr<std::vector<std::uint8_t>> data;
    };
    std::deque<rx_item> m_rx;
    // Step-1 reads in flight (inject thread) and the input FIFO's operands (adder thread).
    struct pending {
        std::size_t index = 0;
        sc_core::sc_time done;
        std::shared_ptr<std::vector<float>> data;
    };
    struct operand {
        std::size_t index = 0;
        sc_core::sc_time ready;
        std::shared_ptr<std::vector<float>> data;
    };
    std::deque<pending> m_inflight;
    std::deque<operand> m_input;
    std::vector<bool> m_requested;
    std::deque<fifo_item> m_tx_items;
    std::size_t m_tx_reserved = 0;
    std::deque<fifo_item> m_out_fifo;
    std::deque<sc_core::sc_time> m_credits;     // arrival times of returned credits
    std::deque<sc_core::sc_time> m_credit_out;  // credits to return (ready times), sent first
    std::size_t m_credits_free = 0;             // initial credits not used yet
    sc_core::sc_event m_rx_changed, m_tx_changed, m_out_changed, m_credit_changed,
        m_credit_out_changed;

    // Statistics.
    counter m_requests_done, m_bytes_reduced, m_tx_frames, m_tx_wire, m_tx_payload, m_rx_frames,
        m_credit_frames, m_adds, m_dma_read_bytes, m_dma_write_bytes;
    scalar m_adder_busy_ns, m_adder_util, m_link_util;
    distribution m_latency_ns, m_credit_wait_ns;
    traced_level m_in_level, m_rx_level, m_tx_level, m_out_level, m_step_level, m_queue_level;
    std::uint32_t m_step_now = 0;
};

}  // namespace trainvp::ip
