#include "platform/workload_tally.h"

namespace trainvp {

namespace {
// Notes what the sections give a block into `count`, and passes it on.
class counting_sink final : public workload_sink {
public:
    counting_sink(workload_sink& block, run_memory_estimate::host_ops& count)
        : m_block(block), m_count(count) {}

    void accept_workload(const config_node& ops, const std::string& key) override {
        if (ops.is_seq()) {
            m_count.ops += ops.items().size();
            m_count.chunks = 1;
        }
        m_block.accept_workload(ops, key);
    }
    void accept_source(std::unique_ptr<ops::op_source> ops, const source_loc& where,
                       const std::string& key) override {
        if (ops != nullptr) {
            m_count.ops += ops->size();
            m_count.chunks = ops->chunks();
        }
        m_block.accept_source(std::move(ops), where, key);
    }
    void accept_data(std::uint64_t address, std::vector<std::uint8_t> bytes,
                     const source_loc& where, const std::string& key) override {
        m_block.accept_data(address, std::move(bytes), where, key);
    }
    void expect_data(std::uint64_t address, std::vector<double> expected,
                     std::vector<double> allowance) override {
        m_block.expect_data(address, std::move(expected), std::move(allowance));
    }
    workloads::host_run ran() override { return m_block.ran(); }

private:
    workload_sink& m_block;
    run_memory_estimate::host_ops& m_count;
};
}  // namespace

workload_tally::workload_tally(const drivers::platform_query& platform) : m_platform(platform) {}

workload_tally::~workload_tally() = default;

std::optional<drivers::block_facts> workload_tally::block(const std::string& path) const {
    std::optional<drivers::block_facts> f = m_platform.block(path);
    if (!f || f->sink == nullptr) return f;
    auto it = m_stand_ins.find(path);
    if (it == m_stand_ins.end()) {
        run_memory_estimate::host_ops& count = m_counts[path];
        count.path = path;
        count.chunks = 0;
        it = m_stand_ins.emplace(path, std::make_unique<counting_sink>(*f->sink, count)).first;
    }
    f->sink = it->second.get();
    return f;
}

std::vector<run_memory_estimate::host_ops> workload_tally::hosts() const {
    std::vector<run_memory_estimate::host_ops> out;
    for (const auto& kv : m_counts) {
        if (kv.second.ops > 0) out.push_back(kv.second);
    }
    return out;
}

}  // namespace trainvp
