/* ABI test library without dpt_plugin_entry_v1: a plain shared module exporting an
 * unrelated function. Loading it as a plugin must fail with a clear error. */
__attribute__((visibility("default"))) int dopant_test_not_a_plugin(void) { return 42; }
