// alpha, beta and gamma of the alpha-beta-gamma model for INCEPTIONN's cluster node on one
// 10 GbE switch (configs/validation/exchange.yaml), derived term by term from the loaded
// platform's params (and the blocks' defaults); nothing is fitted to a simulation.  Shared by
// tests/integration/test_exchange_formulas.cpp (inceptionn.md §VIII-D's formulas) and
// test_collective_bench.cpp (every collective of the registry against its closed form).
#pragma once

#include <cmath>
#include <stdexcept>
#include <string>

#include "core/param_decl.h"
#include "core/params.h"
#include "kit/registry.h"
#include "platform/platform_desc.h"

namespace trainvp::test {

// A param of an expanded instance: the configured value, else its type's default.
class param_reader {
public:
    explicit param_reader(const platform_desc& d) : m_desc(d) {}

    config_node value(const std::string& inst, const std::string& name,
                      const param_decl*& decl) const {
        for (const instance_desc& i : m_desc.instances) {
            if (i.path != inst) continue;
            const type_info* t = registry::global().find(i.type);
            decl = t->find_param(name);
            if (decl == nullptr) throw std::logic_error(i.type + " has no param " + name);
            for (const param_value& v : i.params) {
                if (v.name == name) return v.value;
            }
            return default_value(*decl);
        }
        throw std::logic_error("no instance " + inst);
    }
    double seconds(const std::string& inst, const std::string& name) const {
        const param_decl* d = nullptr;
        const config_node v = value(inst, name, d);
        return param_parse::to_time(v, *d, inst + "." + name).seconds();
    }
    double bytes(const std::string& inst, const std::string& name) const {
        const param_decl* d = nullptr;
        const config_node v = value(inst, name, d);
        return static_cast<double>(param_parse::to_size(v, *d, inst + "." + name).bytes);
    }
    double bytes_per_s(const std::string& inst, const std::string& name) const {
        const param_decl* d = nullptr;
        const config_node v = value(inst, name, d);
        return param_parse::to_bandwidth(v, *d, inst + "." + name).bytes_per_s;
    }
    double flops_per_s(const std::string& inst, const std::string& name) const {
        const param_decl* d = nullptr;
        const config_node v = value(inst, name, d);
        return param_parse::to_compute(v, *d, inst + "." + name).flops_per_s;
    }
    double number(const std::string& inst, const std::string& name) const {
        const param_decl* d = nullptr;
        const config_node v = value(inst, name, d);
        return param_parse::to_real(v, *d, inst + "." + name);
    }

private:
    const platform_desc& m_desc;
};

struct abg {
    double alpha = 0, beta = 0, gamma = 0;
};

// alpha, beta, gamma of node[0] of the loaded platform (all nodes are the same template).
inline abg derive(const platform_desc& d) {
    const param_reader p(d);
    const std::string nic = "node[0].nic", pcie = "node[0].pcie", mem = "node[0].mem",
                      host = "node[0].host", link = "node[0].link";
    // Ethernet frame of a full segment: MSS payload + IPv4/TCP headers + L2 overhead (header,
    // FCS, preamble, inter-frame gap), serialised at the link rate.
    const double mss = p.bytes(nic, "mtu") - p.bytes(nic, "l3l4_header");
    const double wire = mss + p.bytes(nic, "l3l4_header") + p.bytes(nic, "l2_overhead");
    const double link_rate = p.bytes_per_s(link, "rate");
    const double frame_s = wire / link_rate;
    // PCIe: lanes x GT/s x encoding (gen 1-2: 2.5/5 GT/s with 8b/10b; 3+: 128b/130b), / 8.
    const int gen = static_cast<int>(p.number(pcie, "gen"));
    const double gts[] = {0, 2.5e9, 5e9, 8e9, 16e9, 32e9};
    const double enc = gen <= 2 ? 8.0 / 10.0 : 128.0 / 130.0;
    const double pcie_rate = p.number(pcie, "lanes") * gts[gen] * enc / 8.0;
    const double pcie_lat = p.seconds(pcie, "latency");
    const double mps = p.bytes(pcie, "max_payload");
    const double tlps = std::ceil(mss / mps);
    const double mem_bw = p.bytes_per_s(mem, "bandwidth");
    const double mem_lat = p.seconds(mem, "latency");
    const double dllp = p.bytes(pcie, "dllp_overhead");

    abg r;
    // beta: the 10 GbE wire is the bottleneck stage (a frame's DMA over PCIe Gen2 x8 takes
    // about a third of its wire time), so a message of m bytes streams at one frame time per
    // MSS of payload: beta = wire/MSS * 8/rate.  The NIC's `efficiency` scales its engine.
    r.beta = frame_s / mss / p.number(nic, "efficiency");
    // alpha: what one message pays once, besides m*beta:
    //  - the DMA fetch of the first frame: read request up, PCIe latency both ways, memory
    //    latency and its burst, then the completions (MSS + per-TLP overhead) down;
    //  - the first frame's serialisation, which the store-and-forward switch waits for;
    //  - propagation on both links and the switch's port-to-port latency;
    //  - the DMA write of the last frame at the receiver: its TLPs up, PCIe latency, memory;
    //  - the NIC's per-message cost and the host's send/recv software overheads.
    const double fetch = (p.bytes(pcie, "tlp_overhead") + dllp) / pcie_rate + 2 * pcie_lat +
                         mem_lat + p.bytes(nic, "dma_burst") / mem_bw +
                         (mss + tlps * (p.bytes(pcie, "completion_overhead") + dllp)) / pcie_rate;
    const double write = (mss + tlps * (p.bytes(pcie, "tlp_overhead") + dllp)) / pcie_rate +
                         pcie_lat + mps / mem_bw + mem_lat;
    r.alpha = fetch + frame_s + 2 * p.seconds(link, "propagation") +
              p.seconds("switch", "latency") + write + p.seconds(nic, "message_cost");
    // host.cpu's `stack:` keeps its defaults here (no overheads, free per byte): the formulas
    // are the hardware's (the stack's own closed forms: tests/unit/host/test_comm_stack.cpp).
    // gamma: a sum of 2 fp32 buffers of B bytes reads both and writes the result (3B of memory
    // traffic at the memory's bandwidth), then does B/4 adds at peak x efficiency x k/cores
    // (k = cores - comm_cores on the cpu unit, host.cpu's timing rule).
    const double cores = p.number(host, "cores");
    const double k = cores - p.number(host, "comm_cores");
    r.gamma = 3.0 / mem_bw +
              0.25 / (p.flops_per_s(host, "peak") * p.number(host, "efficiency") * k / cores);
    return r;
}

}  // namespace trainvp::test
