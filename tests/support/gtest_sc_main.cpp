// libsystemc.so defines main(), so test executables provide sc_main and run GoogleTest from it.
#include <gtest/gtest.h>
#include <systemc>

int sc_main(int argc, char* argv[]) {
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
