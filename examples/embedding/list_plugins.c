/* Embedding dopant from plain C: create a runtime over the default search path, list the
 * plugins it loaded with their kinds, and destroy it. Build against an installed dopant:
 *   cc list_plugins.c $(pkg-config --cflags --libs dopant) -o list_plugins
 */
#include <dopant/runtime.h>

#include <stdio.h>

int main(void) {
  dpt_runtime_options options = {0};
  options.struct_size = sizeof options;
  options.log_level = DPT_LOG_WARN;
  dpt_runtime* runtime = NULL;
  dpt_error* error = dpt_runtime_create(&options, &runtime);
  if (error != NULL) {
    fprintf(stderr, "list_plugins: %s\n", dpt_error_get_message(error));
    dpt_error_destroy(error);
    return 1;
  }
  printf("dopant %s, ABI %u.%u\n", dpt_version(), dpt_abi_major(), dpt_abi_minor());
  for (uint32_t i = 0; i < dpt_runtime_plugin_count(runtime); ++i) {
    const dpt_plugin_descriptor* plugin = dpt_runtime_plugin(runtime, i)->descriptor;
    printf("%s %s\n", plugin->id, plugin->kind);
  }
  dpt_runtime_destroy(runtime);
  return 0;
}
