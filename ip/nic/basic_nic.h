// nic.basic: the plain NIC (inceptionn.md Fig. 8 without the compression engines; the X540
// baseline NIC), nic_base with no stage added.  It is final: a NIC that adds stages derives
// from nic_base, whose default is to send frame by frame until it says its train hooks are
// complete (sends_trains).
#pragma once

#include "ip/nic/nic_base.h"

namespace trainvp::ip {

class basic_nic final : public nic_base {
public:
    basic_nic(const sc_core::sc_module_name& name, const params& p);
    static void declare(type_decl<basic_nic>& d);

protected:
    // No stage between the DMA and the MAC: a train is its frames (train_wire).
    bool sends_trains() const override { return true; }
};

}  // namespace trainvp::ip
