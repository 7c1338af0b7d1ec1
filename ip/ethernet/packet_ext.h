// The extension every frame on an "eth" socket carries (DESIGN.md: packets are TLM generic
// payloads with an extension).  The generic payload's data length is the frame's wire size;
// the fields here say what the frame is.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <tlm>

#include "core/tos.h"  // k_tos_compressible, the ToS a compression NIC classifies by

namespace trainvp {

struct packet_ext : tlm::tlm_extension<packet_ext> {
    std::uint32_t src = 0;  // source node id
    std::uint32_t dst = 0;  // destination node id
    std::uint32_t flow = 0;
    std::uint32_t tag = 0;  // the sender's message tag; the receiver matches it to a RECV
    std::uint8_t tos = 0;
    std::uint64_t msg_id = 0;       // unique per source node
    std::uint32_t seq = 0;          // frame index within the message
    std::uint32_t frames = 1;       // frames in the message
    std::uint64_t msg_bytes = 0;    // payload bytes of the whole message (uncompressed)
    std::uint32_t payload = 0;      // payload bytes in this frame as carried (after compression)
    std::uint32_t raw_payload = 0;  // payload bytes in this frame before compression
    std::uint32_t wire = 0;         // bytes on the wire: payload, headers, FCS, preamble, gap
    bool compressed = false;
    bool dropped = false;  // set by a stage that dropped the frame (a full switch queue)
    // Frame timing at the current hop, in ps: the first bit and the last bit are available
    // here.  A cut-through stage may forward from the first bit; a store-and-forward stage
    // waits for the last.  A link sets them for the next hop when it delivers the frame.
    std::uint64_t first_bit_ps = 0;
    std::uint64_t last_bit_ps = 0;
    // Set by the link that carried the frame: when its serialisation started (so a switch knows
    // how long the frame waited in its output queue).
    std::uint64_t tx_start_ps = 0;
    // Message granularity (simulation.granularity: message): one transaction carries `train`
    // consecutive frames of a message (seq is the first one's index), `payload`, `raw_payload`
    // and `wire` are their sums, and the fields below let each stage pipeline the train the
    // way its frames would go (ip/ethernet/README.md, "Message granularity").  At packet
    // granularity train is 1 and they are unused.
    std::uint32_t train = 1;
    std::uint32_t head_wire = 0;  // wire bytes of the train's first frame
    std::uint32_t tail_wire = 0;  // wire bytes of its last frame
    // When the head frame's last bit is available at this hop (a store-and-forward switch
    // forwards the train once its head is in).
    std::uint64_t head_last_bit_ps = 0;
    // The last frame is only available whole at last_bit_ps (a store-and-forward stage stored
    // it), so the next link needs its serialisation after that; else it streams in.
    bool tail_stored = false;
    // Functional mode only: the payload bytes as carried.
    std::shared_ptr<std::vector<std::uint8_t>> data;

    tlm::tlm_extension_base* clone() const override { return new packet_ext(*this); }
    void copy_from(const tlm::tlm_extension_base& other) override {
        *this = static_cast<const packet_ext&>(other);
    }
};

// The extension on a "nic" socket: a host's request to its NIC (send a message, post a
// receive) and the NIC's notifications back (a send completed, a message arrived).
struct nic_msg_ext : tlm::tlm_extension<nic_msg_ext> {
    // ALLREDUCE: the host asks a smart NIC to all-reduce `bytes` of fp32 at host_addr across its
    // ring (fpga.allreduce); the NIC answers SEND_DONE with the same msg_id when the result is
    // in host memory.
    enum class op { SEND, SEND_DONE, RECEIVED, ALLREDUCE };
    op what = op::SEND;
    std::uint32_t peer = 0;   // destination (SEND) or source (RECEIVED) node id
    std::uint64_t bytes = 0;  // message payload bytes
    std::uint8_t tos = 0;     // ToS to set on the message's frames
    std::uint64_t msg_id = 0;
    std::uint64_t host_addr = 0;  // where the payload is (SEND) or was written (RECEIVED)
    std::uint32_t tag = 0;        // matches sends to receives on the host side
    // RECEIVED: when the message's first payload byte was in host memory (the host's software
    // may start taking it then; host.cpu `stack.recv_rate`); 0 = not known (the last byte's).
    std::uint64_t first_ps = 0;
    // SEND: the most payload bytes per second the host's software can hand over (host.cpu
    // `stack.send_rate`, one progress thread); the NIC streams the message no faster.  0 =
    // unpaced.  A hardware all-reduce (ALLREDUCE) ignores it.
    double pace_bytes_per_s = 0.0;
    std::shared_ptr<std::vector<std::uint8_t>> data;  // functional mode payload

    tlm::tlm_extension_base* clone() const override { return new nic_msg_ext(*this); }
    void copy_from(const tlm::tlm_extension_base& other) override {
        *this = static_cast<const nic_msg_ext&>(other);
    }
};

}  // namespace trainvp
