// The INCEPTIONN NIC (inceptionn.md §VI-A, Fig. 8-10): the plain NIC with a compression engine
// between the packet DMA and the MAC, and a decompression engine between the MAC and the DMA.
// Frames whose IP ToS is 0x28 (§VI-B) are compressed: headers pass unchanged, the payload is
// compressed 256 bits (8 floats, one per compression block) per engine cycle and the frame goes
// on the wire smaller; the receiver decompresses it back to its original size.  The number of
// frames does not change (§VIII-C), so headers, preamble and gap are paid per frame as before.
//
// Payload modes (DESIGN.md): timing draws each frame's compressed size from a Table III
// bit-width histogram (Table III's row for the NIC's model and error bound, or a given one),
// seeded per block; functional runs the frame's floats through the codec
// (ip/codecs/inceptionn_codec.h) and carries the compressed bytes on the wire.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <random>
#include <vector>

#include "ip/codecs/inceptionn_codec.h"
#include "ip/nic/nic_base.h"

namespace trainvp::ip {

class inceptionn_nic : public nic_base {
public:
    enum class payload_mode { TIMING, FUNCTIONAL };

    inceptionn_nic(const sc_core::sc_module_name& name, const params& p);
    static void declare(type_decl<inceptionn_nic>& d);
    void end_of_run() override;
    bool compresses_tos(std::uint8_t tos) const override { return tos == k_tos_compressible; }
    // In functional mode a compressible frame's values pass through the codec: B(k)
    // (inceptionn_codec::max_abs_error) per pass.
    double functional_error_bound(std::uint8_t tos) const override {
        return m_payload == payload_mode::FUNCTIONAL && compresses_tos(tos) && m_codec
                   ? m_codec->max_abs_error()
                   : 0.0;
    }

    // Compressed stream bytes of one frame of `values` floats in timing mode: 2/10/18/34 bits
    // per value drawn from the histogram (a multinomial draw), plus the tail group's unused tag
    // slots (inceptionn_codec::format_overhead_bits).  Records are whole bytes, so the sum is
    // too.
    static std::uint64_t draw_compressed_bytes(
        const codecs::inceptionn_codec::bit_width_histogram& h, std::uint64_t values,
        std::mt19937_64& rng);

protected:
    sc_core::sc_time tx_process(tx_frame& f) override;
    sc_core::sc_time rx_process(packet_ext& ext, const sc_core::sc_time& arrived) override;
    void tx_message_done(nic_msg_ext& done) override;
    // Message granularity: timing mode only (functional frames carry their own encoded data).
    bool sends_trains() const override { return m_payload == payload_mode::TIMING; }
    sc_core::sc_time tx_process_train(tx_frame& f) override;
    std::pair<sc_core::sc_time, sc_core::sc_time> rx_process_train(
        packet_ext& ext, const sc_core::sc_time& head, const sc_core::sc_time& tail) override;

private:
    struct rx_message {
        std::shared_ptr<std::vector<std::uint8_t>> data;  // functional: the decompressed message
        std::uint32_t done = 0;                           // frames decompressed
        sc_core::sc_time first;                           // first frame's decompression start
    };

    // Timing mode's histogram: Table III's row for table3_model at error_bound, or `histogram`
    // checked against the bound.
    void choose_histogram(const params& p);
    std::uint64_t compressed_bytes(tx_frame& f);
    std::uint64_t cycles(std::uint64_t bytes) const { return (bytes + k_burst - 1) / k_burst; }
    // Decompression engine cycles of a frame of `raw` payload bytes (before the latency).
    std::uint64_t decompress_cycles(std::uint64_t raw) const;
    void decompressed(const packet_ext& ext, const sc_core::sc_time& start,
                      const sc_core::sc_time& done);
    sc_core::sc_time cycle_time(std::uint64_t n) const;

    static constexpr std::uint64_t k_burst = 32;  // 256-bit AXI stream (§VI-A)

    // params
    units::frequency m_clock;
    units::data_size m_frame_header;
    std::uint64_t m_compress_latency = 0;
    std::uint64_t m_decompress_latency = 0;
    double m_error_bound = 0.0;
    payload_mode m_payload = payload_mode::TIMING;
    std::vector<double> m_histogram;
    std::string m_table3_model;

    std::optional<codecs::inceptionn_codec> m_codec;
    codecs::inceptionn_codec::bit_width_histogram m_hist{};
    std::mt19937_64 m_rng;
    timed_resource m_compressor;
    timed_resource m_decompressor;
    sc_core::sc_time m_msg_compress_start;
    std::map<std::pair<std::uint32_t, std::uint64_t>, rx_message> m_rx_msgs;  // (src, msg id)
    std::vector<float> m_floats;  // scratch for the codec
    // Functional mode: the message being sent as its receivers will decode it.
    std::shared_ptr<std::vector<std::uint8_t>> m_tx_decoded;
    std::uint64_t m_tx_decoded_msg = 0;

    counter m_compressed_frames, m_bypassed_frames, m_decompressed_frames;
    counter m_bytes_in, m_bytes_out;
    scalar m_ratio, m_compress_busy_ns, m_decompress_busy_ns;
};

}  // namespace trainvp::ip
