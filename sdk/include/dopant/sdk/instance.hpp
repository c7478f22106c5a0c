// dopant SDK — how a C++ object becomes a dpt_instance: the handle points to an Instance<T>
// that keeps the host next to the object (slots without a host argument still need it to
// create errors). Shared by every kind adapter: create, destroy and the per-slot guard.
//
// The user class T is constructed as T(const dpt_host*, const sdk::Config&); it reads its
// parameters there (the Config object lives only during the constructor).
#pragma once

#include <dopant/host.h>

#include "config.hpp"
#include "errors.hpp"

namespace dopant::sdk {

template <typename T>
struct Instance {
  Instance(const dpt_host* h, const Config& config) : host(h), object(h, config) {}
  const dpt_host* host;
  T object;
};

template <typename T>
Instance<T>* instance_of(dpt_instance* handle) {
  return reinterpret_cast<Instance<T>*>(handle);
}

// The `create` slot of every kind. `host` must be non-NULL.
template <typename T>
dpt_error* create_instance(const dpt_host* host, const dpt_config* config,
                           dpt_instance** out) noexcept {
  return guard(host, [&] {
    require(out != nullptr, "create: `out` is NULL");
    *out = nullptr;
    const Config reader(host, config);
    *out = reinterpret_cast<dpt_instance*>(new Instance<T>(host, reader));
  });
}

// The `destroy` slot of every kind; NULL is accepted.
template <typename T>
void destroy_instance(dpt_instance* handle) noexcept {
  delete instance_of<T>(handle);
}

// Runs body(T&, const dpt_host*) for a slot of a live instance, inside guard(). The handle
// must be one returned by create: without it there is no host to create an error with.
template <typename T, typename Body>
dpt_error* call_instance(dpt_instance* handle, Body&& body) noexcept {
  Instance<T>* instance = instance_of<T>(handle);
  return guard(instance->host, [&] { body(instance->object, instance->host); });
}

}  // namespace dopant::sdk
