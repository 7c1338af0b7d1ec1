// What a workload asks of the NIC a host sends through.  NIC blocks implement it (nic.basic,
// nic.inceptionn, fpga.allreduce); the training section checks that every host marking its
// exchange compressible sends through a NIC that compresses it, and its functional check allows
// each lossy pass its error.  A block the host's `nic` socket reaches that does not implement it
// compresses nothing and adds no error.
#pragma once

#include <cstdint>
#include <string>

#include "core/tos.h"  // k_tos_compressible: the ToS compression NICs classify by

namespace trainvp {

class nic_capabilities {
public:
    virtual ~nic_capabilities() = default;
    // Whether the NIC compresses the frames of a message sent with this IP ToS (a compression
    // NIC: nic.inceptionn and 0x28).
    virtual bool compresses_tos(std::uint8_t tos) const {
        (void)tos;
        return false;
    }
    // Functional mode: the largest absolute error the NIC can add to one float32 value of a
    // message with this IP ToS that it carries (a lossy codec's bound; 0: values arrive exactly).
    // The training section's end-of-run check of every rank's result allows it once per lossy
    // pass (functional_check.cpp).
    virtual double functional_error_bound(std::uint8_t tos) const {
        (void)tos;
        return 0.0;
    }
    // Whether the network runs this all-reduce algorithm itself when a host hands it an
    // allreduce op (fabric.flow with `collective` = algorithm; training `offload: true`).
    virtual bool runs_collective(const std::string& algorithm) const {
        (void)algorithm;
        return false;
    }
    // Whether a host may hand it an allreduce op (a smart NIC's ring, a flow-level fabric's
    // collective); every other NIC refuses one.
    virtual bool takes_allreduce_ops() const { return false; }
};

}  // namespace trainvp
