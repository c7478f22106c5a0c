// The dpt_host function table: thin C entry points over HostServices. No exception leaves
// any of these functions.
#include "host_services.hpp"

#include "error.hpp"
#include "params.hpp"

#include <cstring>

namespace dopant {
namespace {

HostContext& context_of(const dpt_host* host) { return *static_cast<HostContext*>(host->host_data); }
HostServices& services_of(const dpt_host* host) { return *context_of(host).services; }

// Running out of host memory while creating an error message ends the process (noexcept).
dpt_error* host_error(const dpt_host*, dpt_code code, const char* message) noexcept {
  return make_error(code, message != nullptr ? message : "");
}

void host_error_free(const dpt_host*, dpt_error* error) { delete error; }
dpt_code host_error_code(const dpt_host*, const dpt_error* error) { return error != nullptr ? error->code : DPT_OK; }
const char* host_error_message(const dpt_host*, const dpt_error* error) {
  return error != nullptr ? error->message.c_str() : "";
}

void host_log(const dpt_host* host, dpt_log_level level, const char* message) {
  try {
    services_of(host).log(level, context_of(host).owner, message);
  } catch (...) {
  }
}

dpt_error* host_alloc(const dpt_host* host, dpt_memory_kind kind, uint64_t bytes, uint64_t alignment,
                      void** out) {
  if (out == nullptr) return make_error(DPT_INVALID_ARGUMENT, "alloc: `out` is NULL");
  *out = nullptr;
  return guard([&] { *out = services_of(host).allocate(kind, bytes, alignment); });
}

void host_free(const dpt_host* host, dpt_memory_kind kind, void* pointer) {
  try {
    services_of(host).release(kind, pointer);
  } catch (const std::exception& e) {
    services_of(host).log(DPT_LOG_ERROR, context_of(host).owner, e.what());
  }
}

dpt_error* host_memory_stats(const dpt_host* host, dpt_memory_kind kind, dpt_memory_stats* out) {
  if (out == nullptr) return make_error(DPT_INVALID_ARGUMENT, "memory_stats: `out` is NULL");
  return guard([&] {
    const dpt_memory_stats stats = services_of(host).account(kind).stats();
    // The caller's struct may be older and smaller: write only what it holds.
    const uint32_t room = out->struct_size < sizeof stats ? out->struct_size : sizeof stats;
    std::memcpy(reinterpret_cast<char*>(out) + sizeof(uint32_t),
                reinterpret_cast<const char*>(&stats) + sizeof(uint32_t),
                room > sizeof(uint32_t) ? room - sizeof(uint32_t) : 0);
  });
}

dpt_error* host_stream_create(const dpt_host* host, dpt_stream** out) {
  if (out == nullptr) return make_error(DPT_INVALID_ARGUMENT, "stream_create: `out` is NULL");
  return guard([&] { *out = services_of(host).device().create_stream(); });
}
void host_stream_destroy(const dpt_host* host, dpt_stream* stream) {
  try {
    services_of(host).device().destroy_stream(stream);
  } catch (...) {
  }
}
dpt_error* host_stream_synchronize(const dpt_host* host, dpt_stream* stream) {
  return guard([&] { services_of(host).device().synchronize(stream); });
}
dpt_error* host_copy(const dpt_host* host, void* dst, dpt_memory_kind, const void* src, dpt_memory_kind,
                     uint64_t bytes, dpt_stream* stream) {
  if (bytes != 0 && (dst == nullptr || src == nullptr)) {
    return make_error(DPT_INVALID_ARGUMENT, "copy: NULL source or destination");
  }
  return guard([&] { services_of(host).device().copy(dst, src, bytes, stream); });
}
dpt_error* host_event_create(const dpt_host* host, dpt_event** out) {
  if (out == nullptr) return make_error(DPT_INVALID_ARGUMENT, "event_create: `out` is NULL");
  return guard([&] { *out = services_of(host).device().create_event(); });
}
void host_event_destroy(const dpt_host* host, dpt_event* event) {
  try {
    services_of(host).device().destroy_event(event);
  } catch (...) {
  }
}
dpt_error* host_event_record(const dpt_host* host, dpt_event* event, dpt_stream* stream) {
  if (event == nullptr) return make_error(DPT_INVALID_ARGUMENT, "event_record: `event` is NULL");
  return guard([&] { services_of(host).device().record(event, stream); });
}
dpt_error* host_stream_wait_event(const dpt_host* host, dpt_stream* stream, dpt_event* event) {
  if (event == nullptr) return make_error(DPT_INVALID_ARGUMENT, "stream_wait_event: `event` is NULL");
  return guard([&] { services_of(host).device().wait(stream, event); });
}
dpt_error* host_event_synchronize(const dpt_host* host, dpt_event* event) {
  if (event == nullptr) return make_error(DPT_INVALID_ARGUMENT, "event_synchronize: `event` is NULL");
  return guard([&] { services_of(host).device().synchronize(event); });
}
void* host_stream_native(const dpt_host*, dpt_stream* stream) { return stream != nullptr ? stream->native : nullptr; }
int32_t host_device_is_gpu(const dpt_host* host, int32_t* device_index) {
  DeviceBackend& device = services_of(host).device();
  if (device_index != nullptr) *device_index = device.index();
  return device.is_gpu() ? 1 : 0;
}

void free_error(dpt_error* error) { delete error; }

dpt_error* host_parallel_for(const dpt_host* host, uint64_t begin, uint64_t end, uint64_t grain,
                             dpt_parallel_body body, void* context) {
  if (body == nullptr) return make_error(DPT_INVALID_ARGUMENT, "parallel_for: `body` is NULL");
  return services_of(host).pool().parallel_for(begin, end, grain, body, context, free_error);
}
uint32_t host_thread_count(const dpt_host* host) { return services_of(host).pool().size(); }

void host_metric(const dpt_host* host, const char* name, double value, const char* unit, dpt_better better) {
  try {
    services_of(host).add_metric({name != nullptr ? name : "", value, unit != nullptr ? unit : "", better});
  } catch (...) {
  }
}
int32_t host_is_cancelled(const dpt_host* host) { return services_of(host).cancelled.load() ? 1 : 0; }

// Finds a declared parameter of the expected type.
const ParamValue* find_param(const dpt_config* config, const char* name, ParamType type, dpt_error** error) {
  if (config == nullptr || name == nullptr) {
    *error = make_error(DPT_INVALID_ARGUMENT, "config read: NULL config or name");
    return nullptr;
  }
  auto found = config->values.find(std::string_view(name));
  if (found == config->values.end()) {
    *error = make_error(DPT_INVALID_ARGUMENT,
                        "`" + config->owner + "` has no parameter `" + name + "` (it was not declared)");
    return nullptr;
  }
  const ParamType actual = found->second.type;
  const bool matches = actual == type || (type == ParamType::String && actual == ParamType::Enum);
  if (!matches) {
    *error = make_error(DPT_INVALID_ARGUMENT, "parameter `" + std::string(name) + "` of `" + config->owner +
                                                  "` is a " + param_type_name(actual) + ", read as " +
                                                  param_type_name(type));
    return nullptr;
  }
  return &found->second;
}

template <typename Out, typename Read>
dpt_error* read_param(const dpt_config* config, const char* name, ParamType type, Out* out, Read read) {
  if (out == nullptr) return make_error(DPT_INVALID_ARGUMENT, "config read: `out` is NULL");
  dpt_error* error = nullptr;
  if (const ParamValue* value = find_param(config, name, type, &error)) *out = read(*value);
  return error;
}

dpt_error* host_config_bool(const dpt_host*, const dpt_config* config, const char* name, int32_t* out) {
  return read_param(config, name, ParamType::Bool, out, [](const ParamValue& v) { return v.boolean ? 1 : 0; });
}
dpt_error* host_config_int(const dpt_host*, const dpt_config* config, const char* name, int64_t* out) {
  return read_param(config, name, ParamType::Int, out, [](const ParamValue& v) { return v.integer; });
}
dpt_error* host_config_float(const dpt_host*, const dpt_config* config, const char* name, double* out) {
  return read_param(config, name, ParamType::Float, out, [](const ParamValue& v) { return v.real; });
}
dpt_error* host_config_string(const dpt_host*, const dpt_config* config, const char* name, const char** out) {
  return read_param(config, name, ParamType::String, out, [](const ParamValue& v) { return v.text.c_str(); });
}
dpt_error* host_config_size(const dpt_host*, const dpt_config* config, const char* name, uint64_t* out) {
  return read_param(config, name, ParamType::Size, out, [](const ParamValue& v) { return v.size; });
}

}  // namespace

dpt_host make_host_table(HostContext* context) {
  dpt_host host{};
  host.struct_size = sizeof host;
  host.abi_minor = DPT_ABI_MINOR;
  host.error = host_error;
  host.error_free = host_error_free;
  host.error_code = host_error_code;
  host.error_message = host_error_message;
  host.log = host_log;
  host.alloc = host_alloc;
  host.free = host_free;
  host.memory_stats = host_memory_stats;
  host.stream_create = host_stream_create;
  host.stream_destroy = host_stream_destroy;
  host.stream_synchronize = host_stream_synchronize;
  host.copy = host_copy;
  host.event_create = host_event_create;
  host.event_destroy = host_event_destroy;
  host.event_record = host_event_record;
  host.stream_wait_event = host_stream_wait_event;
  host.event_synchronize = host_event_synchronize;
  host.stream_native = host_stream_native;
  host.device_is_gpu = host_device_is_gpu;
  host.parallel_for = host_parallel_for;
  host.thread_count = host_thread_count;
  host.metric = host_metric;
  host.is_cancelled = host_is_cancelled;
  host.config_bool = host_config_bool;
  host.config_int = host_config_int;
  host.config_float = host_config_float;
  host.config_string = host_config_string;
  host.config_size = host_config_size;
  host.host_data = context;
  host.get_extension = [](const dpt_host*, const char* id) { return host_extension(id); };
  return host;
}

}  // namespace dopant
