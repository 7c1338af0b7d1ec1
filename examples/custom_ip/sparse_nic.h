// nic.sparse: a NIC that sparsifies gradients in hardware.  It is the plain NIC (nic.basic,
// from the installed trainvp) with a top-k selection engine between the TX DMA and the MAC and
// a scatter engine between the RX MAC and the DMA, the way INCEPTIONN puts its codec engines
// in the NIC (inceptionn.md Fig. 8), but with sparsification (Aji & Heafield, EMNLP 2017: drop
// 99% of gradients; Lin et al., ICLR 2018, Deep Gradient Compression) instead of the lossy
// float codec.  Each frame's FP32 gradients shrink to a count plus k (index, value) pairs, so
// the frame takes fewer bytes on the wire; the engines cost time at their stream rate.
#pragma once

#include "ip/nic/nic_base.h"
#include "kit/timed_resource.h"
#include "sparse_codec.h"

namespace custom_ip {

class sparse_nic : public trainvp::ip::nic_base {
public:
    sparse_nic(const sc_core::sc_module_name& name, const trainvp::params& p);
    static void declare(trainvp::type_decl<sparse_nic>& d);
    void end_of_run() override;

protected:
    sc_core::sc_time tx_process(tx_frame& f) override;
    sc_core::sc_time rx_process(trainvp::packet_ext& ext, const sc_core::sc_time& arrived) override;

private:
    bool sparsifies(const trainvp::packet_ext& ext) const;

    // params
    double m_density = 0.01;
    trainvp::units::data_size m_value_bytes;
    trainvp::units::data_size m_index_bytes;
    trainvp::units::data_size m_header_bytes;
    trainvp::units::bandwidth m_engine_rate;
    std::int64_t m_tos = -1;

    trainvp::timed_resource m_select;   // TX: top-k selection
    trainvp::timed_resource m_scatter;  // RX: back to a dense frame

    trainvp::counter m_frames_sparsified, m_dense_bytes, m_sparse_bytes, m_kept_elements;
    trainvp::counter m_frames_densified;
    trainvp::scalar m_ratio;
};

}  // namespace custom_ip
