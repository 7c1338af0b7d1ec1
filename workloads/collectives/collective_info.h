// What the collective registry knows about one algorithm: its name as configs write it, a
// sentence for `trainvp describe collectives`, what it needs from the ranks, which fabrics
// drive it, and the factory that makes its schedule.  Pure C++ (no SystemC).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "workloads/collectives/schedule.h"
#include "workloads/collectives/worker_aggregator.h"

namespace trainvp::collectives {

// The consumers that can run a schedule (README.md, "How a consumer walks a schedule").
enum class fabric {
    HOST,  // hosts' op lists (workloads/iteration training_builder, `workload.training`)
    NOC,   // the chiplet interposer, one rank per router (noc.interposer `collective`)
    FPGA,  // the smart NIC's control FSM (fpga.allreduce runs the pipelined ring)
    FLOW,  // the flow-level cluster fabric (fabric.flow), an all-reduce handed over whole
};

// "host", "noc", "fpga", "flow".
const char* fabric_name(fabric f);

// Everything a factory may read.  A collective reads the fields it documents and ignores the
// others; the registry checks `needs` before calling it.
struct collective_args {
    int ranks = 0;               // ranks that contribute (the workers, for an aggregator)
    std::uint64_t elements = 0;  // vector length, in elements (all-to-all: its buffer is 2x)
    int rows = 0, cols = 0;      // grid collectives: rank = row * cols + col (rows * cols = ranks)
    int levels = 2;              // hierarchical_ring: levels of equal size ranks^(1/levels)
    // hierarchical_ring: when not empty, the levels' sizes instead (first varies fastest;
    // their product must be ranks), e.g. a fat tree's hosts per leaf, leaves per pod, pods.
    std::vector<int> group_sizes;
    int trees = 0;                         // multi-trees: 0 gives one tree per rank (or group)
    int degree = 2;                        // multi-trees: children per tree node
    std::uint32_t segments = 1;            // ring: pieces per block (smartnic.md's pipelined ring);
                                           // chain_broadcast: pieces of the vector
    int root = 0;                          // rooted collectives (broadcast, reduce): the root rank
    worker_aggregator_options aggregator;  // worker_aggregator: fan-in and how the sum returns
};

// What a collective needs from its ranks.  collective_registry::make checks each before the
// factory runs, except even_grid, which the factory checks in its own words.
struct collective_needs {
    int min_ranks = 2;
    bool power_of_two = false;   // ranks = 2^k
    bool grid = false;           // args.rows x args.cols = ranks
    bool even_grid = false;      // a grid of even rows and cols (2x2 groups)
    bool perfect_power = false;  // ranks = g^args.levels for an integer g >= 2
    // The schedule adds aggregator ranks after the workers (they hold no input: contributes =
    // false); a consumer must place them (the training builder's `aggregator`).
    bool aggregator = false;
};

// One line for `describe`: "any N >= 2", "an aggregator rank, any N >= 1", ...
std::string describe_needs(const collective_needs& n);

// What a collective leaves on its ranks (check_result() in result_check.h checks it on the
// executor's output).  The all-reduces are what a gradient exchange runs; the others move
// activations, parameters or tokens (paleo.md §4.2.3's hybrid parallelism, sharded data
// parallelism, mixture-of-experts layers) and are made by name.  Elements a result does not
// name are left unspecified (a ring reduce-scatter leaves partial sums in the other blocks).
enum class collective_result {
    ALL_REDUCE,      // every rank ends with the elementwise sum over the contributing ranks
    ALL_GATHER,      // every rank ends with every rank's block r of partition(n, N)
    REDUCE_SCATTER,  // rank r ends with the sum over the ranks of block r of partition(n, N)
    BROADCAST,       // every rank ends with the root's vector (args.root)
    REDUCE,          // the root ends with the elementwise sum over the ranks (others: unspecified)
    // The buffer is 2n elements (n = args.elements, a multiple of N, c = n / N): a send half
    // [0, n) and a receive half [n, 2n).  Rank r ends with block r (c elements) of every rank
    // q's send half in its receive slot q (receive half, source order).  Its own slot q = r
    // moves by no message (a consumer copies it locally): the result leaves it unspecified.
    ALL_TO_ALL,
};

// "all-reduce", "all-gather", "reduce-scatter", "broadcast", "reduce", "all-to-all".
const char* result_name(collective_result r);

struct collective_info {
    std::string name;         // as configs write it ("ring")
    std::string description;  // one sentence, with its source (paper and section)
    collective_needs needs;
    std::vector<fabric> fabrics;  // the consumers wired to run it
    collective_result result = collective_result::ALL_REDUCE;
    std::function<schedule(const collective_args&)> make;
    // Optional: one rank's steps alone, equal to make(args).steps[rank], for a consumer that
    // expands one rank at a time and must not hold every rank's steps (a 1024-rank ring's
    // schedule is 134 MB).  The training builder uses it when present.
    std::function<std::vector<step>(const collective_args&, int rank)> rank_steps;

    bool runs_on(fabric f) const;
};

}  // namespace trainvp::collectives
