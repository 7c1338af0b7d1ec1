// A minimal block registered under TEST_BLOCK_NAME (set by tests/plugins/CMakeLists.txt), to
// provoke the plugin loader's errors.
#include "kit/ip_module.h"
#include "kit/registry.h"

namespace trainvp::test {

class plugin_block : public ip_module {
public:
    plugin_block(const sc_core::sc_module_name& n, const params& p) : ip_module(n, p) {
        p.apply(*this);
    }
    static void declare(type_decl<plugin_block>& d) {
        d.describe("Test block from a test plugin (tests/plugins/).");
        d.param("size", &plugin_block::m_size, "4KiB", "A param, to show in describe");
    }

private:
    units::data_size m_size;
};

TRAINVP_REGISTER_IP(plugin_block, TEST_BLOCK_NAME);

}  // namespace trainvp::test
