// Writes a set of output files all or nothing: every content goes to a temporary file
// beside its destination first, and only when all are written are they renamed into place.
#pragma once

#include <string>
#include <vector>

namespace dopant::ab {

struct OutputFile {
  std::string path;
  std::string content;
};

// Throws std::runtime_error naming the path that could not be written; temporary files are
// removed on every error path.
void write_files_atomically(const std::vector<OutputFile>& files);

}  // namespace dopant::ab
