// A collective in a plugin: paleo.md §2's OneToAll all-reduce.  Every rank sends its vector to
// rank 0, which adds them (round 0); rank 0 sends the sum back to every rank (round 1).  Two
// rounds of N-1 messages of the whole vector: the 2KT of paleo.md's comm model.
// docs/adding-a-collective-or-codec.md walks through this file; tests/plugins/
// test_registry_plugin.cpp loads it and runs the schedule through the functional executor.
#include <stdexcept>
#include <string>

#include "workloads/collectives/collective_registry.h"
#include "workloads/collectives/schedule_builder.h"

namespace {

using namespace trainvp::collectives;

// The builder: one transfer (a SEND and its RECV) at a time, schedule_builder numbers the tags.
schedule one_to_all(int ranks, std::uint64_t elements) {
    if (ranks < 2) {
        throw std::invalid_argument("one_to_all: needs at least 2 ranks, got " +
                                    std::to_string(ranks));
    }
    if (elements < 1) throw std::invalid_argument("one_to_all: needs at least 1 element");
    schedule_builder b("example.one_to_all", ranks, elements);
    const chunk all{0, elements};
    for (int r = 1; r < ranks; ++r) b.transfer(r, 0, all, step_kind::RECV_REDUCE, 0);
    for (int r = 1; r < ranks; ++r) b.transfer(0, r, all, step_kind::RECV_COPY, 1);
    return b.finish();
}

// The registry entry: the name configs write, one sentence, what it needs, which fabrics can
// run it, and the factory.
collective_info one_to_all_info() {
    collective_info c;
    c.name = "example.one_to_all";
    c.description =
        "OneToAll: every rank sends its vector to rank 0, which adds them and sends the sum "
        "back (paleo.md §2)";
    c.needs.min_ranks = 2;
    c.fabrics = {fabric::HOST};
    c.make = [](const collective_args& a) { return one_to_all(a.ranks, a.elements); };
    return c;
}

}  // namespace

TRAINVP_REGISTER_COLLECTIVE(one_to_all_info);
