/* A third party's conversion strategy, written in C against the ABI alone: the checkpoint
 * kind with the "dopant.checkpoint.convert/1" extension. Its `convert` makes the destination
 * folder with one file, `marker`, that records what it was asked ("FROM TO MODEL KEY=VALUE
 * ..."), reports progress once and counts one tensor, one byte and one file. For the
 * model "wait" it prints "ready" once the marker is written and waits to be interrupted.
 * Built into a folder of its own, found only through --plugin-path. */
#include <dopant/abi.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct marker_instance {
  const dpt_host* host;
} marker_instance;

static dpt_error* marker_create(const dpt_host* host, const dpt_config* config, dpt_instance** out) {
  (void)config;
  marker_instance* instance = calloc(1, sizeof *instance);
  if (instance == NULL) return host->error(host, DPT_OUT_OF_MEMORY, "marker: out of memory");
  instance->host = host;
  *out = (dpt_instance*)instance;
  return NULL;
}

static void marker_destroy(dpt_instance* instance) { free(instance); }

static const dpt_host* host_of(dpt_instance* instance) { return ((marker_instance*)instance)->host; }

static dpt_error* marker_unimplemented(dpt_instance* instance) {
  return host_of(instance)->error(host_of(instance), DPT_UNIMPLEMENTED, "marker converts only");
}
static dpt_error* marker_open(dpt_instance* instance, dpt_checkpoint_open_args* args) {
  args->reader = NULL;
  return marker_unimplemented(instance);
}
static dpt_error* marker_list(dpt_instance* instance, dpt_checkpoint_list_args* args) {
  (void)args;
  return marker_unimplemented(instance);
}
static dpt_error* marker_read(dpt_instance* instance, const dpt_checkpoint_read_args* args) {
  (void)args;
  return marker_unimplemented(instance);
}
static void marker_close(dpt_instance* instance, dpt_checkpoint_reader* reader) { (void)instance, (void)reader; }
static dpt_error* marker_begin(dpt_instance* instance, dpt_checkpoint_begin_args* args) {
  args->writer = NULL;
  return marker_unimplemented(instance);
}
static dpt_error* marker_add(dpt_instance* instance, const dpt_checkpoint_add_args* args) {
  (void)args;
  return marker_unimplemented(instance);
}
static dpt_error* marker_finalize(dpt_instance* instance, const dpt_checkpoint_finalize_args* args) {
  (void)args;
  return marker_unimplemented(instance);
}
static void marker_abort(dpt_instance* instance, dpt_checkpoint_writer* writer) { (void)instance, (void)writer; }

static dpt_error* marker_convert(dpt_instance* instance, dpt_checkpoint_convert_args* args) {
  const dpt_host* host = host_of(instance);
  args->tensors_written = args->bytes_written = args->files_written = 0;
  if (mkdir(args->destination, 0755) != 0) {
    return host->error(host, errno == EEXIST ? DPT_ALREADY_EXISTS : DPT_INTERNAL, "marker: cannot make the destination");
  }
  if (strcmp(args->from, "megatron") != 0) {
    rmdir(args->destination);
    return host->error(host, DPT_UNIMPLEMENTED, "marker: unknown source format");
  }
  char path[4096];
  snprintf(path, sizeof path, "%s/marker", args->destination);
  FILE* file = fopen(path, "w");
  if (file == NULL) {
    rmdir(args->destination);
    return host->error(host, DPT_INTERNAL, "marker: cannot write the marker");
  }
  fprintf(file, "%s %s %s", args->from, args->to, args->model);
  for (uint64_t i = 0; i < args->setting_count; ++i) fprintf(file, " %s=%s", args->setting_keys[i], args->setting_values[i]);
  fclose(file);
  if (strcmp(args->model, "wait") == 0) {
    /* Stands for a long conversion with output half written: says so on standard output,
     * then waits (at most a minute) to be interrupted. */
    fputs("ready\n", stdout);
    fflush(stdout);
    for (int i = 0; i < 60000 && !host->is_cancelled(host); ++i) usleep(1000);
    remove(path);
    rmdir(args->destination);
    return host->error(host, DPT_CANCELLED, "marker: was not interrupted");
  }
  if (args->progress != NULL) args->progress(args->progress_context, 1, 1);
  args->tensors_written = args->bytes_written = args->files_written = 1;
  return NULL;
}

static const dpt_checkpoint_v1 marker_table = {
    DPT_CHECKPOINT_V1_FIELDS,        .create = marker_create,         .destroy = marker_destroy,
    .reader_open = marker_open,      .reader_list = marker_list,      .reader_read = marker_read,
    .reader_close = marker_close,    .writer_begin = marker_begin,    .writer_add = marker_add,
    .writer_finalize = marker_finalize, .writer_abort = marker_abort};
static const dpt_checkpoint_convert_v1 marker_convert_table = {DPT_CHECKPOINT_CONVERT_V1_SIZE_1_6, marker_convert};

static const void* marker_get_extension(const char* id) {
  if (strcmp(id, DPT_KIND_CHECKPOINT) == 0) return &marker_table;
  if (strcmp(id, DPT_EXT_CHECKPOINT_CONVERT) == 0) return &marker_convert_table;
  return NULL;
}

static const dpt_plugin_descriptor marker_descriptor = {
    DPT_PLUGIN_DESCRIPTOR_FIELDS, .id = "test-marker", .kind = DPT_KIND_CHECKPOINT, .version = "1.0.0",
    .description = "a conversion strategy that records what it was asked", .get_extension = marker_get_extension};
static const dpt_plugin_descriptor* const marker_plugins[] = {&marker_descriptor};

static const dpt_library marker_library = {DPT_LIBRARY_FIELDS, .id = "test-marker", .version = "1.0.0",
                                           .plugins = marker_plugins, .plugin_count = 1};

DPT_EXPORT const dpt_library* dpt_plugin_entry_v1(void) { return &marker_library; }
