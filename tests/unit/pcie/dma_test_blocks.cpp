#include "tests/unit/pcie/dma_test_blocks.h"

#include <cstring>

#include "kit/registry.h"

namespace trainvp::test {

namespace {
sc_core::sc_time ps(std::uint64_t v) {
    return sc_core::sc_time(static_cast<double>(v), sc_core::SC_PS);
}
}  // namespace

void dma_driver::declare(type_decl<dma_driver>& d) {
    d.describe("Test driver: one dma_channel transfer through `out`.");
    d.choice("command", &dma_driver::m_command,
             {{"write", command::WRITE}, {"read", command::READ}}, "write", "Transfer direction");
    d.required("bytes", &dma_driver::m_bytes, "Bytes to move");
    d.param("address", &dma_driver::m_address, "0B", "Target address");
    d.param("burst", &dma_driver::m_burst, "256B", "Channel burst size");
    d.param("outstanding", &dma_driver::m_outstanding, "8", "Channel window").range("1", "65536");
    d.param("setup", &dma_driver::m_setup, "0ns", "Channel set-up time");
    d.param("start", &dma_driver::m_start, "0ns", "Time of the transfer");
    d.initiator("out", &dma_driver::out, "mem", "DMA bursts");
    d.stat_of(
        "bursts", [](const dma_driver& x) -> const counter& { return x.m_channel.bursts; }, "1",
        "Bursts");
    d.stat_of(
        "bytes_moved",
        [](const dma_driver& x) -> const counter& { return x.m_channel.bytes_moved; }, "B",
        "Bytes moved");
    d.stat_of(
        "burst_latency",
        [](const dma_driver& x) -> const distribution& { return x.m_channel.burst_latency_ns; },
        "ns", "Per burst issue to completion");
}

dma_driver::dma_driver(const sc_core::sc_module_name& n, const params& p) : ip_module(n, p) {
    p.apply(*this);
    dma_channel::settings s;
    s.burst = m_burst.bytes;
    s.outstanding = m_outstanding;
    s.setup = ps(m_setup.ps);
    m_channel.configure(s);
    spawn_thread("run", [this] { run(); });
}

void dma_driver::run() {
    m_result =
        m_channel.run(*out.operator->(),
                      m_command == command::WRITE ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND,
                      m_address.bytes, m_bytes.bytes, ps(m_start.ps));
    if (!m_result.ok) throw sim_error(path() + ": transfer failed: " + m_result.error);
    progress_until(m_result.done);
    wait(m_result.done - sc_core::sc_time_stamp());
    m_finished = true;
    notify_finished();
}

void dma_submitter::declare(type_decl<dma_submitter>& d) {
    d.describe("Test driver: submits descriptors to a dma.engine.");
    d.param("descriptors", &dma_submitter::m_count, "1", "Descriptors to submit");
    d.required("bytes", &dma_submitter::m_bytes, "Bytes per descriptor");
    d.param("src", &dma_submitter::m_src, "0B", "Source address of the first descriptor");
    d.param("dst", &dma_submitter::m_dst, "1GiB", "Destination address of the first descriptor");
    d.param("interval", &dma_submitter::m_interval, "0ns", "Time between posted submissions");
    d.param("wait_each", &dma_submitter::m_wait_each, "false",
            "Submit each descriptor when the previous one completed");
    d.param("omit_descriptor", &dma_submitter::m_omit_descriptor, "false",
            "Send a transaction without the descriptor extension (a protocol error)");
    d.initiator("ctrl", &dma_submitter::ctrl, "dma", "Descriptors");
}

dma_submitter::dma_submitter(const sc_core::sc_module_name& n, const params& p) : ip_module(n, p) {
    p.apply(*this);
    spawn_thread("run", [this] { run(); });
}

void dma_submitter::run() {
    sc_core::sc_time next = sc_core::SC_ZERO_TIME;
    sc_core::sc_time last_done = sc_core::SC_ZERO_TIME;
    for (std::uint64_t i = 0; i < m_count; ++i) {
        record rec;
        rec.submitted = next;
        rec.desc.src = m_src.bytes + i * m_bytes.bytes;
        rec.desc.dst = m_dst.bytes + i * m_bytes.bytes;
        rec.desc.bytes = m_bytes.bytes;
        tlm::tlm_generic_payload trans;
        trans.set_command(tlm::TLM_WRITE_COMMAND);
        trans.set_data_length(0);
        trans.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        ip::dma_desc_ext* ext = new ip::dma_desc_ext(rec.desc);
        if (!m_omit_descriptor) trans.set_extension(ext);
        sc_core::sc_time delay = next - sc_core::sc_time_stamp();
        ctrl->b_transport(trans, delay);
        if (!m_omit_descriptor) {
            trans.clear_extension(ext);
            rec.desc = *ext;
        }
        delete ext;
        if (trans.is_response_error()) {
            throw sim_error(path() + ": descriptor " + std::to_string(i) +
                            " failed: " + trans.get_response_string());
        }
        const sc_core::sc_time done = sc_core::sc_time_stamp() + delay;
        if (done > last_done) last_done = done;
        m_records.push_back(rec);
        progress_until(done);
        next = m_wait_each ? done : next + ps(m_interval.ps);
    }
    if (last_done > sc_core::sc_time_stamp()) wait(last_done - sc_core::sc_time_stamp());
    m_finished = true;
    notify_finished();
}

void data_memory::declare(type_decl<data_memory>& d) {
    d.describe("Test memory that keeps its bytes; answers after `latency`.");
    d.param("size", &data_memory::m_size, "1MiB", "Capacity");
    d.param("latency", &data_memory::m_latency, "10ns", "Latency of every access");
    d.target("target", &data_memory::target, "mem", "Reads and writes");
}

data_memory::data_memory(const sc_core::sc_module_name& n, const params& p) : ip_module(n, p) {
    p.apply(*this);
    m_data.assign(static_cast<std::size_t>(m_size.bytes), 0);
    target.register_b_transport(this, &data_memory::b_transport);
}

void data_memory::b_transport(tlm::tlm_generic_payload& t, sc_core::sc_time& delay) {
    const std::uint64_t len = t.get_data_length();
    if (t.get_address() + len > m_data.size()) {
        t.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return;
    }
    unsigned char* mem = m_data.data() + t.get_address();
    if (t.is_write()) {
        std::memcpy(mem, t.get_data_ptr(), static_cast<std::size_t>(len));
    } else {
        std::memcpy(t.get_data_ptr(), mem, static_cast<std::size_t>(len));
    }
    delay += ps(m_latency.ps);
    t.set_response_status(tlm::TLM_OK_RESPONSE);
}

TRAINVP_REGISTER_IP(dma_driver, "test.dma_driver");
TRAINVP_REGISTER_IP(dma_submitter, "test.dma_submitter");
TRAINVP_REGISTER_IP(data_memory, "test.data_memory");

}  // namespace trainvp::test
