// How a block cuts bytes into Ethernet frames and what each frame costs on the wire (IEEE
// 802.3): every block that puts frames on an `eth` link (nic.basic, nic.inceptionn,
// fpga.allreduce, ethernet.endpoint) derives from it, so that the wire-byte arithmetic exists
// once and its params have one set of names:
//
//   mtu          bytes between a frame's Ethernet header and its FCS, L3/L4 headers included
//   l3l4_header  the IP/TCP headers inside the MTU (0 for frames that carry none)
//   l2_overhead  wire bytes outside the MTU: Ethernet header, FCS, preamble/SFD, inter-frame gap
//   min_wire     the smallest frame on the wire; shorter ones are padded
//
// A frame carrying p payload bytes takes max(p + l3l4_header + l2_overhead, min_wire) bytes on
// the wire; a full frame carries frame_payload() = mtu - l3l4_header.  Pure C++: the params are
// declared members (a block's declare() calls framing::declare), the arithmetic is plain.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include "core/param_decl.h"
#include "core/params.h"
#include "core/units.h"

namespace trainvp::ip {

class framing {
public:
    // What a block says about its frames when it declares the params: their defaults and the
    // block's reason for them (appended to the common descriptions).
    struct spec {
        // Default, range and reason of `mtu`; an empty default declares no mtu: the block sends
        // frames of a payload size of its own (ethernet.endpoint) and never segments.
        std::string mtu;
        std::string mtu_min, mtu_max;
        std::string mtu_note;
        std::string l3l4_header = "40B";
        std::string l3l4_note = "IPv4 20 B (RFC 791) + TCP 20 B (RFC 793)";
        std::string min_wire_note;

        // A NIC's frames: IP/TCP in standard 1500 B frames by default, jumbo frames up to
        // 9216 B (nic.basic, nic.inceptionn, fabric.flow).
        static spec tcp_nic() {
            spec s;
            s.mtu = "1500B";
            s.mtu_min = "576B";
            s.mtu_max = "9216B";
            s.mtu_note = "the IP MTU of an IEEE 802.3 standard frame";
            return s;
        }
    };

    // Declares mtu (unless spec.mtu is empty), l3l4_header, l2_overhead and min_wire on a block
    // type T deriving from framing.
    template <typename T>
    static void declare(param_list<T>& d, const spec& s);

    // Checks what a declaration's ranges cannot: a full frame carries some payload (for a
    // block that declares mtu).  `p` and `path` are the block's, for the error's location and
    // key.
    void check(const params& p, const std::string& path) const;

    // Payload bytes of a full frame (the TCP MSS when l3l4_header is IPv4 + TCP).
    std::uint64_t frame_payload() const { return m_mtu.bytes - m_l3l4_header.bytes; }
    // Frames that carry `bytes` of payload (at least one: an empty message is one frame).
    std::uint64_t frames(std::uint64_t bytes) const {
        return std::max<std::uint64_t>(1, (bytes + frame_payload() - 1) / frame_payload());
    }
    // Wire bytes of one frame carrying `payload` bytes: headers and overhead, padded to
    // min_wire.
    std::uint64_t frame_wire(std::uint64_t payload) const {
        return std::max(payload + per_frame(), m_min_wire.bytes);
    }
    // Wire bytes of `payload` bytes sent as frames(payload) frames in one transfer, each with
    // its headers and overhead, and the transfer padded to min_wire as a whole: exact unless a
    // transfer of several frames ends in a frame shorter than the minimum (which is counted
    // unpadded).  The per-frame sum is frame_wire of each frame.
    std::uint64_t transfer_wire(std::uint64_t payload) const {
        return std::max(payload + frames(payload) * per_frame(), m_min_wire.bytes);
    }
    // The smallest frame on the wire (a control frame with no payload of its own takes it).
    std::uint64_t min_wire() const { return m_min_wire.bytes; }

private:
    std::uint64_t per_frame() const { return m_l3l4_header.bytes + m_l2_overhead.bytes; }

    units::data_size m_mtu;
    units::data_size m_l3l4_header;
    units::data_size m_l2_overhead;
    units::data_size m_min_wire;
};

template <typename T>
void framing::declare(param_list<T>& d, const spec& s) {
    auto with = [](std::string text, const std::string& note) {
        return note.empty() ? text : text + "; " + note;
    };
    if (!s.mtu.empty()) {
        d.param("mtu", &framing::m_mtu, s.mtu,
                with("Bytes a frame carries between its Ethernet header and FCS (the MTU), "
                     "l3l4_header included",
                     s.mtu_note))
            .range(s.mtu_min, s.mtu_max);
    }
    d.param("l3l4_header", &framing::m_l3l4_header, s.l3l4_header,
            with("Network and transport headers inside the MTU of every frame", s.l3l4_note))
        .range("0B", "64KiB");
    d.param("l2_overhead", &framing::m_l2_overhead, "38B",
            "Per-frame wire bytes outside the MTU: Ethernet header 14 B + FCS 4 B + preamble/SFD "
            "8 B + inter-frame gap 12 B (IEEE 802.3)")
        .range("0B", "4KiB");
    d.param("min_wire", &framing::m_min_wire, "84B",
            with("Smallest frame on the wire: the 64 B minimum Ethernet frame + preamble/SFD 8 B "
                 "+ inter-frame gap 12 B (IEEE 802.3); shorter frames are padded (0B: none)",
                 s.min_wire_note))
        .range("0B", "64KiB");
}

}  // namespace trainvp::ip
