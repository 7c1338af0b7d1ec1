// dma.engine: a memory-to-memory DMA engine.  A caller hands it descriptors (src, dst, bytes)
// on `ctrl`; the engine copies through `mem` with an embedded dma_channel (reads of later
// bursts overlap writes of earlier ones, bounded by `outstanding` burst buffers) and answers
// each descriptor when its last write has completed.  Up to `queue_depth` descriptors may be
// in the engine; the set-up of a queued descriptor overlaps the previous one's data phase.
#pragma once

#include <deque>

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <tlm>

#include "ip/dma/dma_channel.h"
#include "ip/dma/dma_desc_ext.h"
#include "kit/ip_module.h"
#include "kit/timed_resource.h"
#include "traces/traced_level.h"

namespace trainvp::ip {

class dma_engine : public ip_module {
public:
    tlm_utils::simple_target_socket<dma_engine> ctrl{"ctrl"};
    tlm_utils::simple_initiator_socket<dma_engine> mem{"mem"};

    dma_engine(const sc_core::sc_module_name& name, const params& p);
    static void declare(type_decl<dma_engine>& d);

    std::string pending_work() const override;
    void end_of_run() override;

private:
    void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);

    units::data_size m_burst;
    std::uint64_t m_outstanding = 0;
    std::uint64_t m_queue_depth = 0;
    units::duration m_setup;

    dma_channel m_channel;
    timed_resource m_setup_unit;            // descriptor fetch and decode, one at a time
    timed_resource m_data;                  // the data phase, one descriptor at a time
    std::deque<sc_core::sc_time> m_active;  // completion times of descriptors in the engine
    sc_core::sc_time m_last_accept = sc_core::SC_ZERO_TIME;
    sc_core::sc_time m_last_done = sc_core::SC_ZERO_TIME;

    counter m_descriptors, m_bytes, m_errors;
    distribution m_queue_dist, m_held_ns, m_latency_ns;
    scalar m_busy_ns, m_utilisation;
    traced_level m_queue;
};

}  // namespace trainvp::ip
