// Temporary file + rename for each output, renames only after every write succeeded.
#include "atomic_files.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <stdexcept>

namespace dopant::ab {

void write_files_atomically(const std::vector<OutputFile>& files) {
  std::vector<std::string> temporaries;
  const auto remove_temporaries = [&] {
    for (const std::string& temporary : temporaries) std::remove(temporary.c_str());
  };
  for (const OutputFile& file : files) {
    const std::string temporary = file.path + ".tmp." + std::to_string(getpid());
    temporaries.push_back(temporary);
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << file.content;
    out.close();
    if (!out) {
      remove_temporaries();
      throw std::runtime_error("cannot write `" + file.path + "`");
    }
  }
  for (size_t i = 0; i < files.size(); ++i) {
    if (std::rename(temporaries[i].c_str(), files[i].path.c_str()) != 0) {
      const std::string reason = std::strerror(errno);
      for (size_t j = i; j < temporaries.size(); ++j) std::remove(temporaries[j].c_str());
      throw std::runtime_error("cannot write `" + files[i].path + "`: " + reason);
    }
  }
}

}  // namespace dopant::ab
