#include "sparse_nic.h"

#include "kit/registry.h"
#include "kit/sim_time.h"

namespace custom_ip {

using trainvp::ps_time;

sparse_nic::sparse_nic(const sc_core::sc_module_name& name, const trainvp::params& p)
    : nic_base(name, p) {
    p.apply(*this);
}

void sparse_nic::declare(trainvp::type_decl<sparse_nic>& d) {
    d.describe(
        "NIC that sparsifies gradients (examples/custom_ip, a plugin): nic.basic plus a top-k "
        "engine on TX that sends each frame's FP32 gradients as a count and k (index, value) "
        "pairs, and a scatter engine on RX that rebuilds the dense frame. Timing mode: the "
        "wire carries the sparse size; data (functional mode) passes unchanged.");
    nic_base::declare_common(d);
    d.param("density", &sparse_nic::m_density, "0.01",
            "Fraction of a frame's gradient elements kept (top-k by magnitude); 0.01 drops 99% "
            "as in Aji & Heafield, EMNLP 2017")
        .range("0.0001", "1");
    d.param("value_bytes", &sparse_nic::m_value_bytes, "4B",
            "Bytes per kept value (FP32, IEEE 754 binary32)")
        .range("1B", "8B");
    d.param("index_bytes", &sparse_nic::m_index_bytes, "4B",
            "Bytes per kept element's index (uint32 as in Deep Gradient Compression's sparse "
            "format, Lin et al., ICLR 2018)")
        .range("1B", "8B");
    d.param("header_bytes", &sparse_nic::m_header_bytes, "4B",
            "Per-frame header of a sparse frame: the number of pairs (uint32)");
    d.param("engine_rate", &sparse_nic::m_engine_rate, "3.2GB/s",
            "Stream rate of the selection and scatter engines over the dense frame: a 256-bit "
            "AXI stream at 100 MHz, INCEPTIONN's engine datapath (inceptionn.md §VI, §VII-C)")
        .range("1MB/s", "1TB/s");
    d.param("tos", &sparse_nic::m_tos, "-1",
            "Sparsify only frames with this IP ToS (INCEPTIONN tags gradients 0x28 = 40, "
            "inceptionn.md §V); -1: every frame")
        .range("-1", "255");
    d.stat("frames_sparsified", &sparse_nic::m_frames_sparsified, "1", "TX frames sent sparse");
    d.stat("dense_bytes", &sparse_nic::m_dense_bytes, "B",
           "Gradient bytes of the sparsified TX frames before sparsification");
    d.stat("sparse_bytes", &sparse_nic::m_sparse_bytes, "B",
           "Payload bytes of the sparsified TX frames as sent (header + pairs)");
    d.stat("kept_elements", &sparse_nic::m_kept_elements, "1", "Gradient elements sent");
    d.stat("frames_densified", &sparse_nic::m_frames_densified, "1",
           "RX frames rebuilt from sparse form");
    d.headline("sparsity_ratio", &sparse_nic::m_ratio, "1",
               "dense_bytes / sparse_bytes: the payload reduction of the sparsified frames");
    d.signal_of(
        "select_busy",
        [](sparse_nic& n) -> trainvp::traced_level& { return n.m_select.busy_signal(); },
        "1 while the TX top-k engine processes a frame");
    d.signal_of(
        "scatter_busy",
        [](sparse_nic& n) -> trainvp::traced_level& { return n.m_scatter.busy_signal(); },
        "1 while the RX scatter engine rebuilds a frame");
}

bool sparse_nic::sparsifies(const trainvp::packet_ext& ext) const {
    return m_tos < 0 || ext.tos == m_tos;
}

sc_core::sc_time sparse_nic::tx_process(tx_frame& f) {
    if (!sparsifies(f.ext)) return f.ready;
    const sparse::format fmt{m_value_bytes.bytes, m_index_bytes.bytes, m_header_bytes.bytes};
    const std::uint64_t n = f.ext.raw_payload / fmt.value_bytes;
    const std::uint64_t k = sparse::kept_elements(n, m_density);
    const std::uint64_t bytes = sparse::encoded_bytes(k, fmt);
    if (n == 0 || bytes >= f.ext.raw_payload) return f.ready;  // sparse would not be smaller
    // The engine streams the whole dense frame to select the top k.
    const auto slot =
        m_select.reserve(f.ready, ps_time(m_engine_rate.transfer_time(f.ext.raw_payload).ps));
    f.ext.payload = static_cast<std::uint32_t>(bytes);
    f.ext.compressed = true;
    ++m_frames_sparsified;
    m_dense_bytes += f.ext.raw_payload;
    m_sparse_bytes += bytes;
    m_kept_elements += k;
    return slot.end;
}

sc_core::sc_time sparse_nic::rx_process(trainvp::packet_ext& ext, const sc_core::sc_time& arrived) {
    if (!ext.compressed) return arrived;
    // The scatter engine writes the dense frame (raw_payload bytes) at its stream rate.
    const auto slot =
        m_scatter.reserve(arrived, ps_time(m_engine_rate.transfer_time(ext.raw_payload).ps));
    ++m_frames_densified;
    return slot.end;
}

void sparse_nic::end_of_run() {
    nic_base::end_of_run();
    m_ratio.set(m_sparse_bytes.value() ? static_cast<double>(m_dense_bytes.value()) /
                                             static_cast<double>(m_sparse_bytes.value())
                                       : 0.0);
}

// Registered exactly like a built-in block; `trainvp` runs this when it loads the plugin.
TRAINVP_REGISTER_IP(sparse_nic, "nic.sparse");

}  // namespace custom_ip
