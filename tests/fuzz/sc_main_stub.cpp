// libsystemc.so refers to sc_main; under libFuzzer, libFuzzer's main() runs instead and this
// is never called.  (<systemc> declares sc_main extern "C".)
#include <systemc>

int sc_main(int, char*[]) { return 0; }
