// A GPU as the host sees it: a compute engine that runs kernels (flops at peak x efficiency,
// plus their GPU-memory traffic at the memory bandwidth) and a copy engine that moves data to
// and from host memory through `pcie` with an embedded dma_channel.  The two engines work
// concurrently; each serves its commands in arrival order.
#pragma once

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <tlm>

#include "ip/dma/dma_channel.h"
#include "kit/ip_module.h"
#include "traces/traced_level.h"

namespace trainvp::ip {

class accel_gpu : public ip_module {
public:
    tlm_utils::simple_target_socket<accel_gpu> ctrl{"ctrl"};
    tlm_utils::simple_initiator_socket<accel_gpu> pcie{"pcie"};

    accel_gpu(const sc_core::sc_module_name& name, const params& p);
    static void declare(type_decl<accel_gpu>& d);

    std::string pending_work() const override;
    void end_of_run() override;

private:
    void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);

    units::compute_rate m_peak;
    double m_efficiency = 1.0;
    double m_slowdown = 1.0;  // a straggler: kernels take slowdown x their time
    units::bandwidth m_memory_bandwidth;
    double m_memory_efficiency = 1.0;
    units::duration m_launch;
    units::data_size m_copy_burst;
    std::uint64_t m_copy_outstanding = 0;
    units::duration m_copy_setup;
    units::bandwidth m_copy_rate;

    dma_channel m_dma;
    sc_core::sc_time m_compute_until = sc_core::SC_ZERO_TIME;
    sc_core::sc_time m_copy_until = sc_core::SC_ZERO_TIME;

    counter m_kernels, m_copies, m_bytes_to_gpu, m_bytes_to_host, m_copy_bursts;
    scalar m_flops, m_compute_busy_ns, m_copy_busy_ns, m_compute_utilisation, m_copy_utilisation;
    distribution m_kernel_wait_ns, m_copy_wait_ns;
    traced_level m_compute_busy{traced_level::style::FLAG};
    traced_level m_copy_busy{traced_level::style::FLAG};
};

}  // namespace trainvp::ip
