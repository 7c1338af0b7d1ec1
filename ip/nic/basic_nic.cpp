#include "ip/nic/basic_nic.h"

#include "kit/registry.h"

namespace trainvp::ip {

basic_nic::basic_nic(const sc_core::sc_module_name& name, const params& p) : nic_base(name, p) {}

void basic_nic::declare(type_decl<basic_nic>& d) {
    d.describe(
        "Plain NIC (the X540 baseline of inceptionn.md): TX reads each frame's payload from "
        "host memory by DMA over PCIe, pays a per-frame cost, and sends it on the Ethernet "
        "link; RX writes payloads to host memory by DMA and notifies the host when a whole "
        "message is there. efficiency < 1 models a NIC that cannot reach line rate; a "
        "SEND's pacing rate (host.cpu stack.send_rate) caps the message's payload rate.");
    declare_common(d);
}

TRAINVP_REGISTER_IP(basic_nic, "nic.basic");

}  // namespace trainvp::ip
