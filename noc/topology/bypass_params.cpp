#include "noc/topology/bypass_params.h"

#include <utility>

namespace trainvp::noc {

namespace {

// A direction's mux setting names the output port it leaves and the input port it enters.
const std::vector<std::pair<std::string, int>> k_ports = {
    {"+x", 1}, {"-x", 2}, {"+y", 3}, {"-y", 4}, {"none", -1}};

void declare_segment(param_list<bypass_segment>& d) {
    d.choice("dim", &bypass_segment::dim,
             std::vector<std::pair<std::string, int>>{{"x", 0}, {"y", 1}}, "x",
             "x: the segment runs along a row; y: along a column");
    d.param("line", &bypass_segment::line, "0", "Index of the row (dim x) or column (dim y)")
        .range("0", "15");
    d.param("track", &bypass_segment::track, "0",
            "Which of the two bidirectional bypass links of the row or column (aries.md §III-B-1)")
        .range("0", "1");
    d.required("from", &bypass_segment::from,
               "Position along the line of the router at one end (its segment switch closed)")
        .range("0", "15");
    d.required("to", &bypass_segment::to, "Position of the router at the other end")
        .range("0", "15");
    d.choice("fwd_out", &bypass_segment::fwd_out, k_ports, "none",
             "from -> to direction: the output port at `from` whose link the mux selects "
             "(none: the direction is unused)");
    d.choice("fwd_in", &bypass_segment::fwd_in, k_ports, "none",
             "from -> to direction: the input port at `to` whose mux selects it");
    d.choice("bwd_out", &bypass_segment::bwd_out, k_ports, "none",
             "to -> from direction: the output port at `to`");
    d.choice("bwd_in", &bypass_segment::bwd_in, k_ports, "none",
             "to -> from direction: the input port at `from`");
}

}  // namespace

void bypass_params::declare(param_list<bypass_params>& d) {
    d.choice("plan", &bypass_params::plan,
             {{"manual", bypass_plan::MANUAL},
              {"bandwidth_ring", bypass_plan::BANDWIDTH_RING},
              {"tree", bypass_plan::TREE}},
             "manual",
             "manual takes `segments` as written; bandwidth_ring generates the "
             "bandwidth-optimised ring of aries.md §IV-A-1 (Fig. 6(b)) for collective ring: a "
             "one-pitch bypass segment beside every ring edge on ports the ring leaves idle, "
             "packets of a message alternating between the two links (2N links used); tree "
             "bridges the tree edges of double_binary_tree, multi_tree or "
             "concentrated_multi_tree with bypass segments (aries.md §IV-B-1 Fig. 7(c), "
             "§IV-B-2 Fig. 8(b)): each dimension-order leg of two or more pitches gets a "
             "segment where a track and ports are free, shortest legs first (the paper's greedy "
             "policy), routes take them (noc/collective/aries_tree_plan.h)");
    d.group_list("segments", &bypass_params::segments,
                 "plan manual: the bypass segments with their mux settings (aries.md §III-B-1/2), "
                 "two bidirectional bypass links (tracks) per row and column, cut by segment "
                 "switches at routers; a port's mux selects one link at a time. Example: "
                 "{dim: x, line: 0, from: 0, to: 3, fwd_out: +x, fwd_in: +x, bwd_out: -x, "
                 "bwd_in: -x}",
                 declare_segment);
}

}  // namespace trainvp::noc
