#pragma once
// What the schedule store's source files share beyond catalog/sql.h: the
// run row's columns and its decoding. Engine-internal.

#include "catalog/sql.h"
#include "ckpt/schedule_store.h"

namespace ckpt::schedule {
using sql::collectRows;
using sql::exec;
using sql::inTransaction;
using sql::sqliteStatus;
using sql::Statement;

// The columns of a run row as the queries select them ("r." the run,
// "s." its schedule), and that row read back; 'path' names the store in errors.
extern const char* const kRunColumns;
Result<ScheduleRun> runFromRow(const Statement& row, const std::string& path);

}  // namespace ckpt::schedule
