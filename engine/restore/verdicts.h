#pragma once
// Building blocks of assertion verdicts and their messages, worded like
// TensorFlow's (Python reprs included) so messages read the same.

#include <string>
#include <vector>

#include "ckpt/match_report.h"

namespace ckpt::restore {

AssertionVerdict passed(Assertion a);
// A FailedPrecondition verdict; 'paths' are the checkpoint or program paths at fault.
AssertionVerdict failed(Assertion a, std::string message, std::vector<std::string> paths);

// Python's repr of a list of strings: ['a', 'b'].
std::string pythonList(const std::vector<std::string>& items);

}  // namespace ckpt::restore
