// A Megatron checkpoint's saved pickle and its `args` (an argparse.Namespace): the legacy
// rank files (model_optim_rng.pt) and torch_dist's common.pt are both torch.save archives
// whose pickle is a dict holding it. Its scalars become metadata `args.NAME`, as text.
#pragma once

#include <dopant/checkpoint_io/input_file.hpp>
#include <dopant/dcp/torch_archive.hpp>
#include <dopant/pickle/pickle.hpp>
#include <dopant/sdk/checkpoint.hpp>

#include <map>
#include <string>

namespace dopant::megatron_legacy {

// The archive's `.../data.pkl` entry (its name and bytes). Throws sdk::Error naming the file
// when there is none or it is over 1 GiB.
std::pair<std::string, std::string> torch_save_pickle(const checkpoint_io::InputFile& input,
                                                      const std::map<std::string, dcp::ArchiveEntry>& entries);

// A scalar pickle node (None, bool, int, float, str) as Python prints it; "" for others.
std::string scalar_text(const pickle::Node& node);

// Appends each scalar of the Namespace `args` (None, bool, int, float, str) as
// ("args.NAME", its text as Python prints it: None, True, 3, ...).
void append_saved_args(const pickle::Node& args, sdk::Metadata& out);

// The `args.NAME` scalars of the torch.save file `path` (e.g. torch_dist's common.pt).
// Throws sdk::Error naming the file when it is not such a file or holds no Namespace `args`.
sdk::Metadata read_saved_args(const std::string& path);

}  // namespace dopant::megatron_legacy
