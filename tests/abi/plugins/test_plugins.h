/* Ids and messages of the ABI test plugins, shared by the plugins (C) and the tests (C++). */
#ifndef DOPANT_TESTS_TEST_PLUGINS_H
#define DOPANT_TESTS_TEST_PLUGINS_H

#define INIT_FAILS_MESSAGE "test-init-fails: the fake accelerator is not present"
#define STEP_FAILS_MESSAGE "test-step-fails: the step budget is spent"
#define DUPLICATE_PLUGIN_ID "test-duplicate"

#endif
