// A run file written to /tmp for one harness session (the suite's entries, `dopant sandbox
// bench`), removed when the object goes.
#pragma once

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string>

namespace dopant::suite {

class TemporaryRunFile {
 public:
  explicit TemporaryRunFile(const std::string& text) {
    char name[] = "/tmp/dopant-suite-XXXXXX.toml";
    const int fd = mkstemps(name, 5);
    if (fd < 0) throw std::runtime_error("cannot create a temporary run file in /tmp");
    close(fd);
    path_ = name;
    std::ofstream file(path_);
    file << text;
    file.close();
    if (!file) {
      std::remove(path_.c_str());
      throw std::runtime_error("cannot write the temporary run file " + path_);
    }
  }
  ~TemporaryRunFile() { std::remove(path_.c_str()); }
  TemporaryRunFile(const TemporaryRunFile&) = delete;
  TemporaryRunFile& operator=(const TemporaryRunFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace dopant::suite
