// The "dma" protocol: a descriptor handed to a dma.engine's `ctrl` socket as an extension of a
// generic payload (command TLM_WRITE_COMMAND, no data).  The engine answers when the copy has
// completed (the annotated delay) and fills in when it accepted the descriptor and when the
// data started to move, so a caller can see back-pressure and set-up separately.
#pragma once

#include <cstdint>

#include <tlm>

namespace trainvp::ip {

struct dma_desc_ext : tlm::tlm_extension<dma_desc_ext> {
    // Set by the caller.
    std::uint64_t src = 0;    // source address (read through the engine's `mem` socket)
    std::uint64_t dst = 0;    // destination address (written through `mem`)
    std::uint64_t bytes = 0;  // bytes to copy (0: a no-op descriptor, set-up only)

    // Set by the engine (absolute simulated times).
    sc_core::sc_time accepted;    // entered the descriptor queue (after any back-pressure)
    sc_core::sc_time data_start;  // set-up done; the first read may issue
    sc_core::sc_time done;        // the last write completed

    tlm::tlm_extension_base* clone() const override { return new dma_desc_ext(*this); }
    void copy_from(const tlm::tlm_extension_base& other) override {
        *this = static_cast<const dma_desc_ext&>(other);
    }
};

}  // namespace trainvp::ip
