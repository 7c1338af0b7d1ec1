// Sends meet receives, before any simulated time: the messages of op lists that are known in
// full before the run (written-out `workload.ops` lists, Chakra traces), paired as a host
// pairs them at run time (ip/host/message_matcher.h): per channel (source node, destination
// node, tag) the k-th receive takes the k-th send, and its size must be the message's.  A
// receive that no send answers would wait for ever, a send that no receive takes would never
// be delivered to an op, and a size that differs is an error when the message arrives; the
// first of these, in the order the entries were added, is reported (workloads/ops/README.md).
//
// Pure C++: an entry carries the caller's own index, so that the caller says where it was
// given (a YAML value, a trace node).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/config_node.h"

namespace trainvp::ops {

class message_pairing {
public:
    struct entry {
        std::uint32_t src = 0;  // the sending node
        std::uint32_t dst = 0;  // the receiving node
        std::uint32_t tag = 0;
        std::uint64_t bytes = 0;
        std::size_t index = 0;        // the caller's
        const void* owner = nullptr;  // the caller's
    };
    enum class problem : std::uint8_t {
        UNANSWERED_RECV,  // `recv` has no send left on its channel
        UNTAKEN_SEND,     // `send` has no receive on its channel
        SIZE,             // `recv` takes `send`, whose size differs
        // All-reduces handed to the network (allreduce ops; entry.src is the posting node):
        ALLREDUCE_MISSING,  // `send` (the tag's first post) has no post from node `missing`
        ALLREDUCE_TWICE,    // `recv` posts the tag of `send` again on the same node
        ALLREDUCE_SIZE,     // `recv` posts the tag of `send` with another size
    };
    struct mismatch {
        problem kind = problem::SIZE;
        std::optional<entry> send;
        std::optional<entry> recv;
        // On the channel: how many sends and receives it has in all.
        std::size_t sends = 0;
        std::size_t recvs = 0;
        std::uint32_t missing = 0;  // ALLREDUCE_MISSING
    };

    // Where an entry was given, for the error at it: the op's value `field` ("to", "from",
    // "bytes", "tag"), its full key, and the op as a message names it ("op 'r1' (recv)").
    struct site {
        source_loc where;
        std::string key;
        std::string what;
    };

    void add_send(const entry& e) { m_sends.push_back(e); }
    void add_recv(const entry& e) { m_recvs.push_back(e); }
    // An all-reduce a node hands to the network (an allreduce op): every node of `nodes`
    // (first_mismatch) must post each tag once, with one size.
    void add_allreduce(const entry& e) { m_allreduces.push_back(e); }
    bool empty() const { return m_sends.empty() && m_recvs.empty() && m_allreduces.empty(); }

    // The first problem: receives in the order added (an unanswered one or a size), then sends
    // no receive took, in the order added, then all-reduces (a tag posted twice by a node or
    // with another size, in the order added; then a tag some node of `nodes` never posts);
    // none when every message is received and every all-reduce posted by all.
    std::optional<mismatch> first_mismatch(const std::vector<std::uint32_t>& nodes = {}) const;

private:
    std::optional<mismatch> first_allreduce_mismatch(const std::vector<std::uint32_t>& nodes) const;

    std::vector<entry> m_sends;
    std::vector<entry> m_recvs;
    std::vector<entry> m_allreduces;
};

}  // namespace trainvp::ops
