// A traffic generator: an initiator that sends `messages` messages of `message_size` bytes,
// paced by `rate` and limited to `outstanding` messages in flight.  It is a driver: the run
// ends when its last message completes.
#pragma once

#include <deque>

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm>

#include "kit/ip_module.h"
#include "traces/traced_level.h"

namespace trainvp::ip {

class traffic_generator : public ip_module {
public:
    tlm_utils::simple_initiator_socket<traffic_generator> out{"out"};

    SC_HAS_PROCESS(traffic_generator);
    traffic_generator(const sc_core::sc_module_name& name, const params& p);
    static void declare(type_decl<traffic_generator>& d);

    bool is_driver() const override { return true; }
    bool finished() const override { return m_finished; }
    bool has_work() const override { return m_messages > 0; }
    std::string pending_work() const override;
    void end_of_run() override;
    // The messages' addresses fit in the memory `out` reaches.
    void validate_peers(const peer_view& peers) const override;

private:
    enum class command { WRITE, READ };
    void run();

    units::data_size m_message_size;
    std::uint64_t m_messages = 0;
    units::bandwidth m_rate;
    std::uint64_t m_outstanding = 0;
    command m_command = command::WRITE;
    units::data_size m_address;
    units::data_size m_region;
    units::duration m_start;
    source_loc m_address_loc;  // where `address` was given (or the block, when it was not)

    std::vector<unsigned char> m_data;
    std::deque<sc_core::sc_time> m_completions;
    bool m_finished = false;
    std::uint64_t m_completed = 0;
    sc_core::sc_time m_first_issue, m_last_completion;

    counter m_sent_messages, m_bytes;
    distribution m_latency_ns;
    scalar m_completion_ns, m_throughput;
    traced_level m_in_flight;
};

}  // namespace trainvp::ip
