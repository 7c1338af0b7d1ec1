// Input files that would stall or swamp a loader (a FIFO, a device, a file beyond the size
// limit, an exponentially aliased or deeply nested document) are refused at once with a located
// error and exit code 2.  The ctest TIMEOUT of this executable (20 s, generous for a shared
// machine) is what measures "at once"; nothing here asserts a time.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <filesystem>
#include <fstream>

#include "tests/support/test_util.h"

namespace trainvp {
namespace {

namespace fs = std::filesystem;

test::command_result trainvp(const std::string& args) {
    return test::run_command(std::string("cd ") + TRAINVP_SOURCE_DIR + " && " + TRAINVP_BIN + " " +
                             args);
}

fs::path fifo_in(const fs::path& dir) {
    const fs::path f = dir / "pipe.yaml";
    EXPECT_EQ(::mkfifo(f.c_str(), 0600), 0);
    return f;
}

TEST(hostile_inputs, an_include_of_a_fifo_is_refused_without_reading_it) {
    const fs::path dir = test::temp_dir("fifo_include");
    const fs::path pipe = fifo_in(dir);
    const std::string cfg = test::write_file(
        dir / "main.yaml", "include: pipe.yaml\ncomponents:\n  mem: {type: memory}\n");
    for (const std::string& cmd :
         {"check " + cfg, "run " + cfg + " --out " + (dir / "out").string()}) {
        auto r = trainvp(cmd);
        EXPECT_EQ(r.exit_code, 2) << r.err;
        EXPECT_EQ(r.err, cfg + ":1:10: error: include: cannot open config file '" + pipe.string() +
                             "': it is a FIFO, not a regular file\n");
    }
    fs::remove_all(dir);
}

TEST(hostile_inputs, a_fifo_or_a_device_as_the_config_or_the_sweep_is_refused) {
    const fs::path dir = test::temp_dir("fifo_config");
    const std::string pipe = fifo_in(dir).string();
    auto c = trainvp("check " + pipe);
    EXPECT_EQ(c.exit_code, 2);
    EXPECT_EQ(c.err, pipe + ": error: cannot open config file '" + pipe +
                         "': it is a FIFO, not a regular file\n");
    auto s = trainvp("sweep " + pipe + " --out " + (dir / "out").string());
    EXPECT_EQ(s.exit_code, 2);
    EXPECT_NE(s.err.find("it is a FIFO, not a regular file"), std::string::npos) << s.err;
    auto z = trainvp("check /dev/zero");
    EXPECT_EQ(z.exit_code, 2);
    EXPECT_EQ(z.err,
              "/dev/zero: error: cannot open config file '/dev/zero': it is a character device, "
              "not a regular file\n");
    fs::remove_all(dir);
}

TEST(hostile_inputs, a_file_beyond_the_size_limit_is_refused_from_its_size) {
    const fs::path dir = test::temp_dir("big_include");
    const fs::path big = dir / "big.yaml";
    {
        std::ofstream out(big);
        out << "# padding\n";
    }
    fs::resize_file(big, (64ull << 20) + 1);  // sparse: nothing is written
    const std::string cfg = test::write_file(
        dir / "main.yaml", "include: big.yaml\ncomponents:\n  mem: {type: memory}\n");
    auto r = trainvp("check " + cfg);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.err, cfg + ":1:10: error: include: config file '" + big.string() +
                         "' is 67108865 B, more than the limit of 64 MiB\n");
    fs::remove_all(dir);
}

TEST(hostile_inputs, an_alias_bomb_and_a_deep_nest_are_refused) {
    for (const char* f :
         {"alias_bomb", "include_alias_bomb", "training_model_alias_bomb", "nesting_too_deep"}) {
        auto r = trainvp(std::string("check tests/configs/bad/") + f + ".yaml");
        EXPECT_EQ(r.exit_code, 2) << f;
        EXPECT_NE(r.err.find(": error: "), std::string::npos) << f << ": " << r.err;
    }
}

}  // namespace
}  // namespace trainvp
