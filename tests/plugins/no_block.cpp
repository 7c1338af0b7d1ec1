// A shared library that is not a trainvp plugin: it registers no IP type.
extern "C" int test_plugin_none_answer() { return 42; }
