#include "ip/nic/inceptionn_nic.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include "ip/codecs/inceptionn_table3.h"
#include "kit/registry.h"
#include "kit/sim_time.h"

namespace trainvp::ip {

namespace {

// Table III's rows are percentages rounded to 0.1: four of them may be off by 0.2 % in sum
// (AlexNet 2^-6 sums to 100.1 %).
constexpr double k_histogram_sum_tolerance = 0.002;

std::string fmt(double x) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", x);
    return buf;
}

using codecs::inceptionn_codec;
using codecs::inceptionn_table3;

std::string bound_text(int exponent) { return "2^" + std::to_string(exponent); }

std::string table3_bounds() {
    std::string out;
    const auto e = inceptionn_table3::exponents();
    for (std::size_t i = 0; i < e.size(); ++i) {
        out += (i == 0 ? "" : i + 1 == e.size() ? " and " : ", ") + bound_text(e[i]);
    }
    return out;
}

std::vector<std::string> table3_choices() {
    std::vector<std::string> out{"none"};
    for (const auto& m : inceptionn_table3::models()) out.push_back(m);
    return out;
}

}  // namespace

void inceptionn_nic::declare(type_decl<inceptionn_nic>& d) {
    d.describe(
        "INCEPTIONN NIC (inceptionn.md §VI-A, Fig. 8-10): nic.basic with a compression engine "
        "between the packet DMA and the MAC and a decompression engine between the MAC and the "
        "DMA. Frames with IP ToS 0x28 (§VI-B) have their payload compressed, 256 bits (eight "
        "floats, one per compression block) per engine cycle, and go on the wire smaller; the "
        "receiver decompresses them. Headers are not compressed and the number of frames does "
        "not change (§VIII-C). Other frames bypass both engines. payload: timing draws each "
        "frame's compressed size from a Table III bit-width histogram; functional runs the "
        "frame's floats through the codec.");
    declare_common(d);
    d.param("clock", &inceptionn_nic::m_clock, "100MHz",
            "Clock of the NIC and so of its compression and decompression engines "
            "(inceptionn.md §VII-C: the accelerators run at the NIC's 100 MHz); one 256-bit "
            "burst per cycle (§VI-A)")
        .range("1MHz", "10GHz");
    d.param("frame_header", &inceptionn_nic::m_frame_header, "54B",
            "Header bytes ahead of the payload in the engines' AXI stream, passed uncompressed "
            "(§VI-A: 'does not compress the header'): Ethernet 14 B (IEEE 802.3) + IPv4 20 B "
            "(RFC 791) + TCP 20 B (RFC 793)")
        .range("0B", "256B");
    d.param("compress_latency", &inceptionn_nic::m_compress_latency, "4",
            "Pipeline depth of the compression engine in cycles, added once per frame: Fig. 9's "
            "four stages (compression blocks, binary shifter tree, tag concatenation, alignment "
            "unit) at one cycle each; the paper gives no latency (assumption)")
        .range("0", "1000");
    d.param("decompress_latency", &inceptionn_nic::m_decompress_latency, "4",
            "Pipeline depth of the decompression engine in cycles, added once per frame: Fig. "
            "10's four stages (burst buffer, tag decoder, decompression blocks, concatenation) "
            "at one cycle each; the paper gives no latency (assumption)")
        .range("0", "1000");
    d.param("error_bound", &inceptionn_nic::m_error_bound, "2^-10",
            "Error bound 2^k of the codec, a power of two (inceptionn.md §V, Algorithm 2; §VIII "
            "uses 2^-10, Table III also 2^-8 and 2^-6). The real per-value guarantee is "
            "B(k) >= 2^k (ip/codecs/README.md)")
        .range("2^-31", "2^-1");
    d.choice("payload", &inceptionn_nic::m_payload,
             {{"timing", payload_mode::TIMING}, {"functional", payload_mode::FUNCTIONAL}}, "timing",
             "timing: each compressible frame's size is drawn from a bit-width histogram, "
             "Table III's row for `table3_model` at `error_bound` or `histogram` (DESIGN.md "
             "payload modes); functional: the frame's float32 payload goes through the codec "
             "(messages must carry data)");
    d.choice_of("table3_model", &inceptionn_nic::m_table3_model, table3_choices, "none",
                "Timing mode: the model whose gradients the NIC carries; compressed sizes follow "
                "inceptionn.md Table III's row for this model at `error_bound` (given for 2^-10, "
                "2^-8 and 2^-6; another bound needs a measured `histogram`). none: use "
                "`histogram`");
    d.param("histogram", &inceptionn_nic::m_histogram, "[]",
            "Timing mode without table3_model: fractions of values compressed to 2, 10, 18 and 34 "
            "bits, measured at `error_bound`; must sum to 1 (within 0.002, Table III's rounding). "
            "A Table III row of another error bound is an error")
        .range("0", "1");
    d.stat("compressed_frames", &inceptionn_nic::m_compressed_frames, "1",
           "TX frames with ToS 0x28, compressed");
    d.stat("bypassed_frames", &inceptionn_nic::m_bypassed_frames, "1",
           "TX frames with another ToS, sent uncompressed");
    d.stat("decompressed_frames", &inceptionn_nic::m_decompressed_frames, "1",
           "RX frames decompressed");
    d.stat("compress_in", &inceptionn_nic::m_bytes_in, "B",
           "Payload bytes of compressed frames before compression");
    d.stat("compress_out", &inceptionn_nic::m_bytes_out, "B",
           "Payload bytes of compressed frames after compression");
    d.headline("compression_ratio", &inceptionn_nic::m_ratio, "1",
               "compress_in / compress_out (0 when nothing was compressed)");
    d.stat("compress_busy", &inceptionn_nic::m_compress_busy_ns, "ns",
           "Time the compression engine was busy");
    d.stat("decompress_busy", &inceptionn_nic::m_decompress_busy_ns, "ns",
           "Time the decompression engine was busy");
    d.signal_of(
        "compress_busy",
        [](inceptionn_nic& n) -> traced_level& { return n.m_compressor.busy_signal(); },
        "1 while the compression engine streams a frame");
    d.signal_of(
        "decompress_busy",
        [](inceptionn_nic& n) -> traced_level& { return n.m_decompressor.busy_signal(); },
        "1 while the decompression engine streams a frame");
}

inceptionn_nic::inceptionn_nic(const sc_core::sc_module_name& name, const params& p)
    : nic_base(name, p), m_rng(ctx().rng_for(path())) {
    p.apply(*this);  // every declared param: its own, and nic_base's again to the same values
    auto loc_of = [&](const char* key) {
        const config_node* v = p.find(key);
        return v != nullptr ? v->loc() : p.where();
    };
    int exp = 0;
    const double mant = std::frexp(m_error_bound, &exp);
    if (mant != 0.5) {
        throw input_error(loc_of("error_bound"), path() + ".error_bound",
                          "the error bound must be a power of two (2^-10, 2^-8, ...)");
    }
    m_codec.emplace(exp - 1);
    choose_histogram(p);
}

void inceptionn_nic::choose_histogram(const params& p) {
    auto loc_of = [&](const char* key) {
        const config_node* v = p.find(key);
        return v != nullptr ? v->loc() : p.where();
    };
    const int k = m_codec->error_bound_exponent();
    const bool table3 = m_table3_model != "none";
    if (m_payload == payload_mode::FUNCTIONAL) {
        if (!m_histogram.empty() || table3) {
            const char* key = table3 ? "table3_model" : "histogram";
            throw input_error(loc_of(key), path() + "." + key,
                              "payload: functional compresses real data; a histogram is for "
                              "payload: timing");
        }
        return;
    }
    if (table3) {
        if (!m_histogram.empty()) {
            throw input_error(loc_of("histogram"), path() + ".histogram",
                              "give either table3_model (" + m_table3_model + ", at " +
                                  loc_of("table3_model").str() +
                                  ": Table III's row for error_bound) or a histogram, not both");
        }
        const inceptionn_table3::row* row = inceptionn_table3::find(m_table3_model, k);
        if (row == nullptr) {
            throw input_error(loc_of("error_bound"), path() + ".error_bound",
                              bound_text(k) + ": inceptionn.md Table III gives " + m_table3_model +
                                  "'s bit-width histogram at " + table3_bounds() +
                                  " only; for another bound give `histogram` (measured at " +
                                  bound_text(k) + ") instead of table3_model");
        }
        m_histogram = {row->histogram.bits2, row->histogram.bits10, row->histogram.bits18,
                       row->histogram.bits34};
    } else {
        if (m_histogram.size() != 4) {
            throw input_error(loc_of("histogram"), path() + ".histogram",
                              "payload: timing needs a histogram of 4 fractions (2-, 10-, 18- "
                              "and 34-bit values, inceptionn.md Table III) or table3_model, "
                              "got " +
                                  std::to_string(m_histogram.size()));
        }
        // A Table III row measured at another bound would give that bound's sizes silently.
        const inceptionn_codec::bit_width_histogram given{m_histogram[0], m_histogram[1],
                                                          m_histogram[2], m_histogram[3]};
        const auto rows = inceptionn_table3::matching(given);
        const bool this_bound =
            std::any_of(rows.begin(), rows.end(), [&](const auto* r) { return r->exponent == k; });
        if (!rows.empty() && !this_bound) {
            const config_node* eb = p.find("error_bound");
            throw input_error(
                loc_of("histogram"), path() + ".histogram",
                "this is inceptionn.md Table III's " + rows[0]->model + " row for " +
                    bound_text(rows[0]->exponent) + ", but error_bound is " + bound_text(k) +
                    (eb != nullptr ? " (at " + eb->loc().str() + ")" : " (default)") +
                    "; give `table3_model: " + rows[0]->model +
                    "` to follow error_bound, or a histogram measured at " + bound_text(k));
        }
    }
    const double sum = m_histogram[0] + m_histogram[1] + m_histogram[2] + m_histogram[3];
    if (std::abs(sum - 1.0) > k_histogram_sum_tolerance) {
        throw input_error(loc_of("histogram"), path() + ".histogram",
                          "the fractions sum to " + fmt(sum) + ", not 1 (within " +
                              fmt(k_histogram_sum_tolerance) + ", Table III's rounding)");
    }
    // Normalised like inceptionn_codec::compression_ratio does.
    m_hist = {m_histogram[0] / sum, m_histogram[1] / sum, m_histogram[2] / sum,
              m_histogram[3] / sum};
}

sc_core::sc_time inceptionn_nic::cycle_time(std::uint64_t n) const {
    return ps_time(n * m_clock.period().ps);
}

std::uint64_t inceptionn_nic::draw_compressed_bytes(const inceptionn_codec::bit_width_histogram& h,
                                                    std::uint64_t values, std::mt19937_64& rng) {
    // A multinomial draw as a chain of binomials; the last class with a non-zero fraction
    // takes what is left (so rounding in `mass` never puts values in an empty class).
    std::uint64_t left = values;
    double mass = 1.0;
    std::uint64_t count[4] = {0, 0, 0, 0};
    const double p[4] = {h.bits2, h.bits10, h.bits18, h.bits34};
    int last = 3;
    while (last > 0 && p[last] <= 0.0) --last;
    for (int c = 0; c < last && left > 0; ++c) {
        const double q = mass > 0.0 ? std::min(1.0, std::max(0.0, p[c] / mass)) : 0.0;
        std::binomial_distribution<std::uint64_t> b(left, q);
        count[c] = b(rng);
        left -= count[c];
        mass -= p[c];
    }
    count[last] += left;
    const std::uint64_t bits = 2 * count[0] + 10 * count[1] + 18 * count[2] + 34 * count[3] +
                               inceptionn_codec::format_overhead_bits(values);
    return bits / 8;
}

std::uint64_t inceptionn_nic::compressed_bytes(tx_frame& f) {
    const std::uint64_t raw = f.ext.raw_payload;
    const std::uint64_t values = raw / 4;
    const std::uint64_t rest = raw % 4;  // a message not made of whole floats: sent as it is
    if (m_payload == payload_mode::TIMING)
        return draw_compressed_bytes(m_hist, values, m_rng) + rest;

    if (!f.ext.data) {
        throw sim_error(path() + ": payload: functional, but message " +
                        std::to_string(f.ext.msg_id) + " to node " + std::to_string(f.ext.dst) +
                        " carries no data (its sender runs in timing mode)");
    }
    const std::vector<std::uint8_t>& msg = *f.ext.data;
    const std::uint64_t off = static_cast<std::uint64_t>(f.ext.seq) * frame_payload();
    if (off + raw > msg.size()) {
        throw sim_error(path() + ": message " + std::to_string(f.ext.msg_id) + " carries " +
                        std::to_string(msg.size()) + " B of data for " +
                        std::to_string(f.ext.msg_bytes) + " B");
    }
    m_floats.resize(values);
    if (values > 0) std::memcpy(m_floats.data(), msg.data() + off, values * 4);
    auto out = std::make_shared<std::vector<std::uint8_t>>();
    m_codec->encode(m_floats.data(), values, *out);
    out->insert(out->end(), msg.begin() + static_cast<std::ptrdiff_t>(off + values * 4),
                msg.begin() + static_cast<std::ptrdiff_t>(off + raw));
    f.ext.data = out;  // this frame's payload as carried

    // What the receivers will decode, for the sender's own copy (see tx_message_done).
    if (!m_tx_decoded || m_tx_decoded_msg != f.ext.msg_id) {
        m_tx_decoded = std::make_shared<std::vector<std::uint8_t>>(msg);
        m_tx_decoded_msg = f.ext.msg_id;
    }
    m_codec->decode(out->data(), out->size(), m_floats.data(), values);
    if (values > 0) std::memcpy(m_tx_decoded->data() + off, m_floats.data(), values * 4);
    return out->size();
}

// Functional mode: SEND_DONE carries the message as the receivers decode it, so that the sender
// can keep the same values (after a ring all-gather every node then holds identical gradients).
// On the hardware this is the compressed stream fed back through the decompression engine and
// written to the host by DMA; that DMA write is not timed here.
void inceptionn_nic::tx_message_done(nic_msg_ext& done) {
    if (m_tx_decoded && m_tx_decoded_msg == done.msg_id) done.data = std::move(m_tx_decoded);
    m_tx_decoded.reset();
}

// The engine streams the frame from the virtual FIFO once its payload is in the NIC: headers
// at one burst per cycle, the payload at one 256-bit burst (eight compression blocks) per
// cycle, then the pipeline latency.  The paper's engine starts at the first payload burst;
// starting when the DMA of the frame is complete over-counts by at most one frame's DMA time
// per message, since frames are pipelined.
sc_core::sc_time inceptionn_nic::tx_process(tx_frame& f) {
    if (f.ext.tos != k_tos_compressible) {
        ++m_bypassed_frames;
        return f.ready;
    }
    const std::uint64_t raw = f.ext.raw_payload;
    const std::uint64_t out = compressed_bytes(f);
    const std::uint64_t n_cycles = cycles(m_frame_header.bytes) + cycles(raw);
    const timed_resource::slot s = m_compressor.reserve(f.ready, cycle_time(n_cycles));
    const sc_core::sc_time done = s.end + cycle_time(m_compress_latency);
    if (f.ext.seq == 0) m_msg_compress_start = s.start;
    if (f.ext.seq + 1 == f.ext.frames) {
        if (spans_on())
            ctx().spans().span(
                path() + ".compress",
                "compress " + std::to_string(f.ext.msg_bytes) + "B to " + std::to_string(f.ext.dst),
                "compress", m_msg_compress_start.value(), done.value());
    }
    f.ext.payload = static_cast<std::uint32_t>(out);
    f.ext.compressed = true;
    ++m_compressed_frames;
    m_bytes_in += raw;
    m_bytes_out += out;
    return done;
}

// Message granularity: the train's frames are drawn one by one from the same stream as at
// packet level (so the compressed bytes are the same) and the engine is reserved once for the
// sum of their cycles; the head frame is ready one frame's cycles after the start, the last one
// no earlier than its own cycles after its payload is in.
sc_core::sc_time inceptionn_nic::tx_process_train(tx_frame& f) {
    const std::uint64_t n = f.ext.train;
    if (f.ext.tos != k_tos_compressible) {
        m_bypassed_frames += n;
        return nic_base::tx_process_train(f);
    }
    std::uint64_t out_total = 0, wire_total = 0, n_cycles = 0;
    std::uint64_t head_cycles = 0, tail_cycles = 0;
    for (std::uint64_t i = 0; i < n; ++i) {
        const std::uint64_t raw = i + 1 < n ? frame_payload() : f.tail_raw;
        const std::uint64_t out = draw_compressed_bytes(m_hist, raw / 4, m_rng) + raw % 4;
        const std::uint64_t wire = frame_wire(out);
        const std::uint64_t c = cycles(m_frame_header.bytes) + cycles(raw);
        out_total += out;
        wire_total += wire;
        n_cycles += c;
        if (i == 0) {
            head_cycles = c;
            f.ext.head_wire = static_cast<std::uint32_t>(wire);
        }
        if (i + 1 == n) {
            tail_cycles = c;
            f.ext.tail_wire = static_cast<std::uint32_t>(wire);
        }
    }
    const timed_resource::slot s = m_compressor.reserve(f.ready, cycle_time(n_cycles));
    const sc_core::sc_time tail_end = std::max(s.end, f.tail_ready + cycle_time(tail_cycles));
    m_compressor.block_until(tail_end);
    const sc_core::sc_time latency = cycle_time(m_compress_latency);
    f.tail_processed = tail_end + latency;
    if (f.ext.seq == 0) m_msg_compress_start = s.start;
    if (f.ext.seq + n == f.ext.frames) {
        if (spans_on())
            ctx().spans().span(
                path() + ".compress",
                "compress " + std::to_string(f.ext.msg_bytes) + "B to " + std::to_string(f.ext.dst),
                "compress", m_msg_compress_start.value(), f.tail_processed.value());
    }
    m_bytes_in += f.ext.raw_payload;
    m_bytes_out += out_total;
    m_compressed_frames += n;
    f.ext.payload = static_cast<std::uint32_t>(out_total);
    f.ext.wire = static_cast<std::uint32_t>(wire_total);
    f.ext.compressed = true;
    return s.start + cycle_time(head_cycles) + latency;
}

std::uint64_t inceptionn_nic::decompress_cycles(std::uint64_t raw) const {
    const std::uint64_t values = raw / 4;
    const std::uint64_t groups =
        (values + inceptionn_codec::group_values - 1) / inceptionn_codec::group_values;
    return cycles(m_frame_header.bytes) + 1 + groups + cycles(raw % 4);
}

std::pair<sc_core::sc_time, sc_core::sc_time> inceptionn_nic::rx_process_train(
    packet_ext& ext, const sc_core::sc_time& head, const sc_core::sc_time& tail) {
    if (!ext.compressed) return {head, tail};
    const std::uint64_t n = ext.train;
    const std::uint64_t tail_raw = ext.raw_payload - (n - 1) * frame_payload();
    const std::uint64_t full = decompress_cycles(frame_payload());
    const std::uint64_t last = decompress_cycles(tail_raw);
    const timed_resource::slot s = m_decompressor.reserve(head, cycle_time((n - 1) * full + last));
    const sc_core::sc_time tail_end = std::max(s.end, tail + cycle_time(last));
    m_decompressor.block_until(tail_end);
    const sc_core::sc_time latency = cycle_time(m_decompress_latency);
    ext.payload = ext.raw_payload;
    ext.compressed = false;
    m_decompressed_frames += n;
    decompressed(ext, s.start, tail_end + latency);
    return {s.start + cycle_time(full) + latency, tail_end + latency};
}

// Counts a decompressed frame (or train) into its message; the message's span ends with it.
void inceptionn_nic::decompressed(const packet_ext& ext, const sc_core::sc_time& start,
                                  const sc_core::sc_time& done) {
    const auto key = std::make_pair(ext.src, ext.msg_id);
    rx_message& m = m_rx_msgs[key];
    if (m.done == 0) m.first = start;
    m.done += ext.train;
    if (m.done == ext.frames) {
        if (spans_on())
            ctx().spans().span(
                path() + ".decompress.from" + std::to_string(ext.src),
                "decompress " + std::to_string(ext.msg_bytes) + "B from " + std::to_string(ext.src),
                "decompress", m.first.value(), done.value());
        m_rx_msgs.erase(key);
    }
}

// A complete frame is in the FIFO before decompression starts (§VI-A).  The burst buffer holds
// two bursts before the first record is decoded (one cycle more), then one record of eight
// values leaves the decompression blocks per cycle; headers pass at one burst per cycle.
sc_core::sc_time inceptionn_nic::rx_process(packet_ext& ext, const sc_core::sc_time& arrived) {
    if (!ext.compressed) return arrived;
    const std::uint64_t raw = ext.raw_payload;
    const std::uint64_t values = raw / 4;
    const std::uint64_t groups =
        (values + inceptionn_codec::group_values - 1) / inceptionn_codec::group_values;
    const std::uint64_t n_cycles = cycles(m_frame_header.bytes) + 1 + groups + cycles(raw % 4);
    const timed_resource::slot s = m_decompressor.reserve(arrived, cycle_time(n_cycles));
    const sc_core::sc_time done = s.end + cycle_time(m_decompress_latency);

    const auto key = std::make_pair(ext.src, ext.msg_id);
    rx_message& m = m_rx_msgs[key];
    if (m.done == 0) m.first = s.start;
    if (ext.data) {
        // Functional: decode this frame's stream into the message being reassembled.
        if (!m.data) m.data = std::make_shared<std::vector<std::uint8_t>>(ext.msg_bytes);
        const std::vector<std::uint8_t>& in = *ext.data;
        const std::uint64_t off = static_cast<std::uint64_t>(ext.seq) * frame_payload();
        if (off + raw > m.data->size()) {
            throw sim_error(path() + ": frame " + std::to_string(ext.seq) + " of message " +
                            std::to_string(ext.msg_id) + " from node " + std::to_string(ext.src) +
                            " lies outside its " + std::to_string(ext.msg_bytes) + " B");
        }
        m_floats.resize(values);
        std::size_t used = 0;
        try {
            used = m_codec->decode(in.data(), in.size(), m_floats.data(), values);
        } catch (const std::exception& e) {
            throw sim_error(path() + ": frame " + std::to_string(ext.seq) + " of message " +
                            std::to_string(ext.msg_id) + " from node " + std::to_string(ext.src) +
                            ": " + e.what());
        }
        if (in.size() - used != raw % 4) {
            throw sim_error(path() + ": frame " + std::to_string(ext.seq) + " of message " +
                            std::to_string(ext.msg_id) + " has " +
                            std::to_string(in.size() - used) + " B after its compressed stream");
        }
        if (values > 0) std::memcpy(m.data->data() + off, m_floats.data(), values * 4);
        std::memcpy(m.data->data() + off + values * 4, in.data() + used, raw % 4);
        ext.data = m.data;
    }
    ext.payload = ext.raw_payload;
    ext.compressed = false;
    ++m_decompressed_frames;
    if (++m.done == ext.frames) {
        if (spans_on())
            ctx().spans().span(
                path() + ".decompress.from" + std::to_string(ext.src),
                "decompress " + std::to_string(ext.msg_bytes) + "B from " + std::to_string(ext.src),
                "decompress", m.first.value(), done.value());
        m_rx_msgs.erase(key);
    }
    return done;
}

void inceptionn_nic::end_of_run() {
    nic_base::end_of_run();
    m_ratio.set(m_bytes_out.value() ? static_cast<double>(m_bytes_in.value()) /
                                          static_cast<double>(m_bytes_out.value())
                                    : 0.0);
    m_compress_busy_ns.set(static_cast<double>(m_compressor.busy_ps()) / 1000.0);
    m_decompress_busy_ns.set(static_cast<double>(m_decompressor.busy_ps()) / 1000.0);
}

TRAINVP_REGISTER_IP(inceptionn_nic, "nic.inceptionn");

}  // namespace trainvp::ip
