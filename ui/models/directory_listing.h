#pragma once
// The checkpoints found in one directory, as the sidebar shows them: every
// *.index beside the directory's `checkpoint` state file, with the state
// file's view of them. Built on a worker thread by listDirectory().

#include <QDateTime>
#include <QString>

#include <cstdint>
#include <optional>
#include <vector>

namespace ckpt::ui {

struct CheckpointFileEntry {
    QString prefix;               // absolute bundle prefix
    QString name;                 // file name of the prefix ("ckpt-3")
    std::optional<int64_t> number;  // trailing "-N" of the name
    std::optional<int64_t> step;    // stored in the checkpoint, else the number (checkpoint_step.h)
    QString stepSource;             // the key the step was read from, or "checkpoint number"
    QDateTime modified;           // of the .index
    int64_t bytes = 0;            // index plus data files
    bool inStateFile = false;     // listed in all_model_checkpoint_paths
    bool isLatest = false;        // the state file's model_checkpoint_path
};

struct DirectoryListing {
    QString dir;
    std::vector<CheckpointFileEntry> checkpoints;  // by number, then name
    QString stateFileError;  // a state file that exists but cannot be parsed
    QString error;           // the directory itself is unreadable or gone
};

DirectoryListing listDirectory(const QString& dir);
// The directory whose checkpoints to list for what a user opened: the
// directory itself, or the one holding a prefix / .index / .data file.
QString directoryFor(const QString& openedPath);

} // namespace ckpt::ui
