// A stand-in for the dopant binary in the fresh-process tests. It accepts
// `fake [--plugin-path DIR]... run FILE --variant NAME --repetitions 1 --json OUT` and acts
// by the variant's name: "hang" sleeps for a minute, "fail" writes to stderr and exits 3,
// "crash" aborts, "garbled" writes a file that is not JSON; any other name writes a
// `dopant run` JSON whose one metric "value" is a counter kept in FILE.count, and whose
// workload field records the arguments it was given.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  std::string file, variant, json, repetitions, seen;
  for (size_t i = 0; i < args.size(); ++i) {
    seen += (seen.empty() ? "" : " ") + args[i];
    if (i + 1 >= args.size()) continue;
    if (args[i] == "run") file = args[i + 1];
    if (args[i] == "--variant") variant = args[i + 1];
    if (args[i] == "--json") json = args[i + 1];
    if (args[i] == "--repetitions") repetitions = args[i + 1];
  }
  if (file.empty() || variant.empty() || json.empty() || repetitions != "1") {
    std::fprintf(stderr, "fake dopant: bad arguments: %s\n", seen.c_str());
    return 2;
  }
  if (variant == "hang") sleep(60);
  if (variant == "fail") {
    std::fprintf(stderr, "line one\nfake dopant: boom in variant fail\n");
    return 3;
  }
  if (variant == "crash") std::abort();
  if (variant == "garbled") {
    std::ofstream(json) << "{not json";
    return 0;
  }
  long count = 0;
  std::ifstream(file + ".count") >> count;
  std::ofstream(file + ".count") << count + 1;
  std::ofstream(json) << "{\"dopant_version\": \"0\", \"config\": \"" << file << "\", \"workload\": \"" << seen
                      << "\", \"variant\": \"" << variant << "\", \"metrics\": [{\"name\": \"value\", \"unit\": \"s\", "
                      << "\"better\": \"lower\", \"median\": " << count << ", \"values\": [" << count << "]}]}\n";
  return 0;
}
