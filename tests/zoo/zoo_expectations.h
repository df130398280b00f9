#pragma once
// What `ckpt` must say about each zoo case (corruption_zoo.h): one row per
// case and command, with the exact exit code and the error line. The CLI
// test runs every row; the explorer test checks that the explorer shows the
// same engine message (one message for CLI and UI).

#include <span>
#include <string>
#include <string_view>

namespace ckpt::zoo {

struct ZooExpectation {
    const char* caseName;
    const char* command;  // verify | inspect | tree | cat | stats | list (cat / stats take the case's key)
    int exitCode;
    // A line of the command's stdout or stderr contains this; "{dir}" stands
    // for the case's directory. Mostly the whole line.
    const char* text;
};
std::span<const ZooExpectation> zooExpectations();

// Every command must finish within these, on every case.
inline constexpr double kZooMaxWallSeconds = 2.0;
inline constexpr long kZooMaxPeakRssKiB = 200 * 1024;

// The reason a case's row for 'command' (or "explorer", for the explorer
// test's row) is expected to fail until a pending engine fix is merged;
// nullptr for every other row. The rows state the correct behaviour already.
const char* awaitingFix(std::string_view caseName, std::string_view command);

// 'text' with "{dir}" replaced by 'dir'.
std::string expandZooText(std::string_view text, std::string_view dir);

}  // namespace ckpt::zoo
