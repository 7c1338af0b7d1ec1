// Test-only blocks for the PCIe and DMA tests: a driver that runs one dma_channel transfer, a
// driver that submits descriptors to a dma.engine, and a memory that keeps its bytes (to check
// that copies are exact).
#pragma once

#include <vector>

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <tlm>

#include "ip/dma/dma_channel.h"
#include "ip/dma/dma_desc_ext.h"
#include "kit/ip_module.h"

namespace trainvp::test {

// Moves `bytes` at `address` through `out` with one dma_channel::run (write or read).
class dma_driver : public ip_module {
public:
    tlm_utils::simple_initiator_socket<dma_driver> out{"out"};

    SC_HAS_PROCESS(dma_driver);
    dma_driver(const sc_core::sc_module_name& n, const params& p);
    static void declare(type_decl<dma_driver>& d);
    bool is_driver() const override { return true; }
    bool finished() const override { return m_finished; }

    const dma_channel& channel() const { return m_channel; }
    const dma_channel::result& result() const { return m_result; }

private:
    enum class command { WRITE, READ };
    void run();

    command m_command = command::WRITE;
    units::data_size m_bytes, m_address, m_burst;
    std::uint64_t m_outstanding = 0;
    units::duration m_setup, m_start;
    dma_channel m_channel;
    dma_channel::result m_result;
    bool m_finished = false;
};

// Submits `descriptors` copies of `bytes` (src and dst advance by `bytes` each) to a
// dma.engine: every `interval` without waiting (posted), or each after the previous completed.
class dma_submitter : public ip_module {
public:
    tlm_utils::simple_initiator_socket<dma_submitter> ctrl{"ctrl"};

    SC_HAS_PROCESS(dma_submitter);
    dma_submitter(const sc_core::sc_module_name& n, const params& p);
    static void declare(type_decl<dma_submitter>& d);
    bool is_driver() const override { return true; }
    bool finished() const override { return m_finished; }

    // What the engine reported for each descriptor, with its submit time.
    struct record {
        sc_core::sc_time submitted;
        ip::dma_desc_ext desc;
    };
    const std::vector<record>& records() const { return m_records; }

private:
    void run();

    std::uint64_t m_count = 0;
    units::data_size m_bytes, m_src, m_dst;
    units::duration m_interval;
    bool m_wait_each = false;
    bool m_omit_descriptor = false;
    std::vector<record> m_records;
    bool m_finished = false;
};

// A memory that stores its bytes and answers after a fixed latency (no bandwidth limit).
class data_memory : public ip_module {
public:
    tlm_utils::simple_target_socket<data_memory> target{"target"};

    data_memory(const sc_core::sc_module_name& n, const params& p);
    static void declare(type_decl<data_memory>& d);
    std::vector<unsigned char>& bytes() { return m_data; }

private:
    void b_transport(tlm::tlm_generic_payload& t, sc_core::sc_time& delay);
    units::data_size m_size;
    units::duration m_latency;
    std::vector<unsigned char> m_data;
};

}  // namespace trainvp::test
