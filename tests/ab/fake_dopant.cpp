// A stand-in for the dopant binary in the fresh-process tests. It accepts
// `fake [--plugin-path DIR]... run FILE --variant NAME --repetitions 1 --json OUT` and acts
// by the variant's name:
//   "hang" sleeps for a minute; "fail" writes to stderr and exits 3; "crash" aborts;
//   "segfault" writes a line to stderr, then dies of SIGSEGV;
//   "garbled" writes a file that is not JSON;
//   "oom" fails as `dopant run` does when the workload fails: a result with the metric
//     "value" only and "error": {"code": "out of memory", "message": "... (run COUNT)"},
//     exit status 1;
//   "status1" writes to stderr and exits 1 without a result; "status1-no-error" writes a
//     result without "error" and exits 1; "error-status0" writes a result with "error" and
//     exits 0 (neither is what `dopant run` does);
//   any other name succeeds: metrics "value" and "rate", exit status 0.
// "value" is a counter kept in FILE.count, advanced by every run that writes a result; the
// workload field records the arguments the fake was given.
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

namespace {

struct Result {
  std::string json_path;
  std::string file;
  std::string arguments;
  std::string variant;
  bool with_rate = true;
  bool with_error = false;
};

void write_result(const Result& result) {
  long count = 0;
  std::ifstream(result.file + ".count") >> count;
  std::ofstream(result.file + ".count") << count + 1;
  std::ofstream json(result.json_path);
  json << "{\"dopant_version\": \"0\", \"config\": \"" << result.file << "\", \"workload\": \"" << result.arguments
       << "\", \"variant\": \"" << result.variant << "\", \"metrics\": [{\"name\": \"value\", \"unit\": \"s\", "
       << "\"better\": \"lower\", \"median\": " << count << ", \"values\": [" << count << "]}";
  if (result.with_rate) {
    json << ", {\"name\": \"rate\", \"unit\": \"1/s\", \"better\": \"higher\", \"median\": 50, \"values\": [50]}";
  }
  json << "]";
  if (result.with_error) {
    json << ", \"error\": {\"code\": \"out of memory\", \"message\": \"fake dopant: requested 4096 bytes (run "
         << count << ")\"}";
  }
  json << "}\n";
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  Result result;
  std::string repetitions;
  for (size_t i = 0; i < args.size(); ++i) {
    result.arguments += (result.arguments.empty() ? "" : " ") + args[i];
    if (i + 1 >= args.size()) continue;
    if (args[i] == "run") result.file = args[i + 1];
    if (args[i] == "--variant") result.variant = args[i + 1];
    if (args[i] == "--json") result.json_path = args[i + 1];
    if (args[i] == "--repetitions") repetitions = args[i + 1];
  }
  if (result.file.empty() || result.variant.empty() || result.json_path.empty() || repetitions != "1") {
    std::fprintf(stderr, "fake dopant: bad arguments: %s\n", result.arguments.c_str());
    return 2;
  }
  const std::string& variant = result.variant;
  if (variant == "hang") sleep(60);
  if (variant == "fail") {
    std::fprintf(stderr, "line one\nfake dopant: boom in variant fail\n");
    return 3;
  }
  if (variant == "crash") std::abort();
  if (variant == "segfault") {
    std::fprintf(stderr, "fake dopant: about to segfault\n");
    std::signal(SIGSEGV, SIG_DFL);
    std::raise(SIGSEGV);
  }
  if (variant == "garbled") {
    std::ofstream(result.json_path) << "{not json";
    return 0;
  }
  if (variant == "status1") {
    std::fprintf(stderr, "fake dopant: refused before running\n");
    return 1;
  }
  result.with_rate = variant != "oom";
  result.with_error = variant == "oom" || variant == "error-status0";
  write_result(result);
  return variant == "oom" || variant == "status1-no-error" ? 1 : 0;
}
