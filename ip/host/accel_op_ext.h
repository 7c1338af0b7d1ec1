// The extension on an "accel" socket: a command from a host to its accelerator.  The
// accelerator answers through the annotated delay: the command is complete at now + delay
// (after queueing behind earlier commands on the same engine).
#pragma once

#include <cstdint>

#include <tlm>

namespace trainvp::ip {

struct accel_op_ext : tlm::tlm_extension<accel_op_ext> {
    enum class kind {
        COMPUTE,       // a kernel: flops, plus bytes of accelerator-memory traffic
        COPY_TO_HOST,  // the copy engine writes `bytes` to host memory at host_addr
        COPY_TO_GPU,   // the copy engine reads `bytes` from host memory at host_addr
    };
    kind what = kind::COMPUTE;
    double flops = 0.0;
    std::uint64_t bytes = 0;
    std::uint64_t host_addr = 0;
    // COMPUTE: a measured kernel (a pass whose time a paper gives): it takes exactly this long
    // on the compute engine, with no launch, flops or bytes model.  0: modelled.
    std::uint64_t duration_ps = 0;
    // Set by the accelerator: when the command started on its engine, in ps (later than its
    // arrival when the engine was busy).
    std::uint64_t start_ps = 0;

    tlm::tlm_extension_base* clone() const override { return new accel_op_ext(*this); }
    void copy_from(const tlm::tlm_extension_base& other) override {
        *this = static_cast<const accel_op_ext&>(other);
    }
};

}  // namespace trainvp::ip
