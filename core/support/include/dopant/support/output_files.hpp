// Output files (reports, --json, dumps) written the one way every command writes them, so
// that no output path can destroy a file it should not, lose a session, or fail unseen.
//
// Each output is named by the option that asked for it ("--json") and its path. The path
// may be:
//   - absent, or a regular file: written to a temporary file in the same folder, flushed,
//     then renamed over the path (readers never see half a report);
//   - a character device or a FIFO: written through, never replaced (as root, `--json
//     /dev/null` must not turn /dev/null into a regular file); a FIFO needs a reader;
//   - a symlink: followed, and its target written as above; the link stays a link.
// Refused, naming the option and the path: a folder, a missing parent folder, a folder
// that cannot be written, a dangling symlink, any other kind of file, the same file named
// by two outputs, and a file that is one of the command's inputs (its own config).
//
// check_outputs() runs these checks before any work, so a bad path costs nothing; the
// writer runs them again and is all or nothing: every temporary file is written before
// any is renamed, and on any error every temporary file is removed and no regular file
// has been replaced. Write errors (a full disk, /dev/full) are detected and reported.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace dopant {

struct OutputFile {
  std::string option;   // "--json", for messages
  std::string path;
  std::string content;  // unused by check_outputs
};

// Thrown by both calls: "OPTION PATH: reason".
class OutputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Checks that every output can be written, none is one of `inputs` and no two are the
// same file. Writes nothing.
void check_outputs(const std::vector<OutputFile>& outputs, const std::vector<std::string>& inputs = {});

// Writes every output, all or none (see above).
void write_outputs(const std::vector<OutputFile>& outputs, const std::vector<std::string>& inputs = {});

}  // namespace dopant
