#pragma once
// The Schedules tab's tables over one read of the schedule store
// (ScheduleStoreSnapshot): SchedulesModel lists the schedules (name,
// source → destination, next run, last result, recent run durations for
// the sparkline delegate); ScheduleRunsModel lists one schedule's runs
// (start, duration, bytes, result, error, trigger). A new snapshot with
// the same rows updates them in place, so the periodic re-read keeps the
// selection and scroll position. Show snapshots; never call the engine.
// GUI thread only.

#include <QAbstractTableModel>

#include <memory>

#include "jobs/schedule_jobs.h"

namespace ckpt::ui {

// "3 min ago", "in 2 h", "now": 'at' relative to 'now' (both wall seconds).
QString relativeTime(double at, double now);
// "35 ms", "2.4 s", "2 min 5 s", "1 h 3 min".
QString durationText(double seconds);
// A running run's progress as its scheduler last wrote it to the store:
// "42% training", "retention" (no total), or empty (nothing written yet).
QString runProgressText(const ScheduleRun& run);

class SchedulesModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { NameColumn, RouteColumn, NextRunColumn, LastResultColumn, DurationsColumn, ColumnCount };
    // DurationsColumn: the finished runs' durations in seconds, oldest
    // first, as QList<double> (DurationSparklineDelegate draws them).
    static constexpr int DurationsRole = Qt::UserRole + 1;

    using QAbstractTableModel::QAbstractTableModel;

    void setSnapshot(std::shared_ptr<const ScheduleStoreSnapshot> snapshot);
    const std::shared_ptr<const ScheduleStoreSnapshot>& snapshot() const { return m_snapshot; }
    const ScheduleEntry* entry(const QModelIndex& index) const;
    const ScheduleEntry* entry(int row) const;
    // The row of the schedule with this id, or -1.
    int rowOf(int64_t scheduleId) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const ScheduleStoreSnapshot> m_snapshot;
};

// Finished runs' durations, oldest first (at most 'limit', the newest).
QList<double> recentDurations(const ScheduleEntry& entry, int limit);

class ScheduleRunsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { StartColumn, DurationColumn, BytesColumn, ResultColumn, ErrorColumn, TriggerColumn, ColumnCount };

    using QAbstractTableModel::QAbstractTableModel;

    // One schedule's runs out of 'snapshot' (newest first); a null snapshot
    // or an id not in it shows no runs.
    void setRuns(std::shared_ptr<const ScheduleStoreSnapshot> snapshot, int64_t scheduleId);
    int64_t scheduleId() const { return m_scheduleId; }
    const ScheduleRun* run(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const ScheduleStoreSnapshot> m_snapshot;  // keeps m_runs alive
    const std::vector<ScheduleRun>* m_runs = nullptr;
    int64_t m_scheduleId = 0;
};

}  // namespace ckpt::ui
