#include "models/schedules_model.h"

#include <QBrush>
#include <QDateTime>
#include <QDir>
#include <QLocale>

#include <cmath>
#include <optional>

#include "style/status_colors.h"
#include "style/text_format.h"

namespace ckpt::ui {
namespace {

QString qs(std::string_view s) { return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())); }

// As the retention preview writes times: compact and sortable.
QString dateTime(double seconds) {
    return QDateTime::fromMSecsSinceEpoch(static_cast<qint64>(seconds * 1000.0)).toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
}

QString nativePath(const std::string& path) { return QDir::toNativeSeparators(QString::fromStdString(path)); }

QString route(const Schedule& s) {
    QString to = nativePath(s.destination);
    switch (s.source) {
    case ScheduleSource::Directory: return SchedulesModel::tr("%1 \u2192 %2").arg(nativePath(s.sourcePath), to);
    case ScheduleSource::DemoTrainer: return SchedulesModel::tr("demo training \u2192 %1").arg(to);
    case ScheduleSource::Program: return SchedulesModel::tr("program %1 \u2192 %2").arg(QString::fromStdString(s.sourcePath), to);
    }
    return to;
}

// The result's tone; its words are in the same cell. Skipped: plain text.
std::optional<StatusTone> resultTone(RunResult result) {
    switch (result) {
    case RunResult::Ok: return StatusTone::Good;
    case RunResult::Failed:
    case RunResult::Interrupted: return StatusTone::Bad;
    case RunResult::Running: return StatusTone::Info;
    case RunResult::Skipped: break;
    }
    return std::nullopt;
}

}  // namespace

QString relativeTime(double at, double now) {
    const double delta = at - now;
    const double magnitude = std::abs(delta);
    if (magnitude < 1) return SchedulesModel::tr("now");
    QString amount;
    if (magnitude < 60) amount = SchedulesModel::tr("%1 s").arg(std::lround(magnitude));
    else if (magnitude < 3600) amount = SchedulesModel::tr("%1 min").arg(std::lround(magnitude / 60));
    else if (magnitude < 48 * 3600) amount = SchedulesModel::tr("%1 h").arg(std::lround(magnitude / 3600));
    else amount = SchedulesModel::tr("%1 d").arg(std::lround(magnitude / 86400));
    return delta > 0 ? SchedulesModel::tr("in %1").arg(amount) : SchedulesModel::tr("%1 ago").arg(amount);
}

QString durationText(double seconds) {
    if (seconds < 1) return SchedulesModel::tr("%1 ms").arg(std::lround(seconds * 1000));
    if (seconds < 60) return SchedulesModel::tr("%1 s").arg(QLocale().toString(seconds, 'f', seconds < 10 ? 1 : 0));
    const long s = std::lround(seconds);
    if (s < 3600) return SchedulesModel::tr("%1 min %2 s").arg(s / 60).arg(s % 60);
    return SchedulesModel::tr("%1 h %2 min").arg(s / 3600).arg((s % 3600) / 60);
}

QString runProgressText(const ScheduleRun& run) {
    if (run.result != RunResult::Running) return {};
    QString phase = QString::fromStdString(run.progressPhase);
    if (run.progressTotal <= 0) return phase;
    const auto percent = static_cast<int>(100 * run.progressDone / run.progressTotal);
    return phase.isEmpty() ? SchedulesModel::tr("%1%").arg(percent) : SchedulesModel::tr("%1% %2").arg(percent).arg(phase);
}

QList<double> recentDurations(const ScheduleEntry& entry, int limit) {
    QList<double> out;
    for (const ScheduleRun& run : entry.runs) {
        if (out.size() >= limit) break;
        if (run.endedAt && run.result != RunResult::Skipped) out.prepend(run.seconds());
    }
    return out;
}

void SchedulesModel::setSnapshot(std::shared_ptr<const ScheduleStoreSnapshot> snapshot) {
    bool sameRows = m_snapshot && snapshot && m_snapshot->entries.size() == snapshot->entries.size();
    for (size_t i = 0; sameRows && i < snapshot->entries.size(); ++i)
        sameRows = m_snapshot->entries[i].schedule.id == snapshot->entries[i].schedule.id;
    if (!sameRows) {
        beginResetModel();
        m_snapshot = std::move(snapshot);
        endResetModel();
        return;
    }
    m_snapshot = std::move(snapshot);
    if (rowCount() > 0) emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

const ScheduleEntry* SchedulesModel::entry(int row) const {
    if (!m_snapshot || row < 0 || row >= static_cast<int>(m_snapshot->entries.size())) return nullptr;
    return &m_snapshot->entries[static_cast<size_t>(row)];
}

const ScheduleEntry* SchedulesModel::entry(const QModelIndex& index) const {
    return index.isValid() ? entry(index.row()) : nullptr;
}

int SchedulesModel::rowOf(int64_t scheduleId) const {
    for (int r = 0; r < rowCount(); ++r)
        if (entry(r)->schedule.id == scheduleId) return r;
    return -1;
}

int SchedulesModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() || !m_snapshot ? 0 : static_cast<int>(m_snapshot->entries.size());
}

int SchedulesModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant SchedulesModel::data(const QModelIndex& index, int role) const {
    const ScheduleEntry* e = entry(index);
    if (!e) return {};
    const Schedule& s = e->schedule;
    const ScheduleRun* last = e->runs.empty() ? nullptr : &e->runs.front();
    const double now = m_snapshot->readAt;
    if (role == DurationsRole && index.column() == DurationsColumn) return QVariant::fromValue(recentDurations(*e, 30));
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case NameColumn: return QString::fromStdString(s.name);
        case RouteColumn: return route(s);
        case NextRunColumn:
            if (!s.enabled) return tr("disabled");
            if (!e->due.nextAt) return s.source == ScheduleSource::Program ? tr("when the program saves") : tr("\u2014");
            if (e->due.due) return e->due.trigger == RunTrigger::CatchUp ? tr("due (catch-up)") : tr("due");
            return relativeTime(*e->due.nextAt, now);
        case LastResultColumn:
            if (!last) return tr("never ran");
            if (const QString progress = runProgressText(*last); !progress.isEmpty())
                return tr("running (%1), %2").arg(progress, relativeTime(last->startedAt, now));
            return tr("%1, %2").arg(qs(runResultName(last->result)), relativeTime(last->startedAt, now));
        case DurationsColumn: {
            const QList<double> d = recentDurations(*e, 1);
            return d.isEmpty() ? QString() : durationText(d.last());
        }
        }
        return {};
    case Qt::ToolTipRole:
        switch (index.column()) {
        case NextRunColumn: return e->due.nextAt ? dateTime(*e->due.nextAt) : QVariant();
        case LastResultColumn:
            if (!last) return {};
            return last->error.empty() ? QString::fromStdString(last->note) : QString::fromStdString(last->error);
        case DurationsColumn: return tr("Durations of the last %n runs, oldest left", nullptr, recentDurations(*e, 30).size());
        default: return route(s);
        }
    case Qt::ForegroundRole:
        if (index.column() == LastResultColumn && last && resultTone(last->result))
            return QBrush(statusTextColor(*resultTone(last->result)));
        if (index.column() == NextRunColumn && !s.enabled) return QBrush(statusTextColor(StatusTone::Neutral));
        return {};
    default: return {};
    }
}

QVariant SchedulesModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
    case NameColumn: return tr("Name");
    case RouteColumn: return tr("Source \u2192 destination");
    case NextRunColumn: return tr("Next run");
    case LastResultColumn: return tr("Last result");
    case DurationsColumn: return tr("Recent durations");
    }
    return {};
}

void ScheduleRunsModel::setRuns(std::shared_ptr<const ScheduleStoreSnapshot> snapshot, int64_t scheduleId) {
    const std::vector<ScheduleRun>* runs = nullptr;
    if (snapshot)
        for (const ScheduleEntry& e : snapshot->entries)
            if (e.schedule.id == scheduleId) runs = &e.runs;
    bool sameRows = m_runs && runs && m_runs->size() == runs->size() && scheduleId == m_scheduleId;
    for (size_t i = 0; sameRows && i < runs->size(); ++i) sameRows = (*m_runs)[i].id == (*runs)[i].id;
    if (!sameRows) beginResetModel();
    m_snapshot = std::move(snapshot);
    m_runs = runs;
    m_scheduleId = scheduleId;
    if (!sameRows) endResetModel();
    else if (rowCount() > 0) emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

const ScheduleRun* ScheduleRunsModel::run(int row) const {
    if (!m_runs || row < 0 || row >= static_cast<int>(m_runs->size())) return nullptr;
    return &(*m_runs)[static_cast<size_t>(row)];
}

int ScheduleRunsModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() || !m_runs ? 0 : static_cast<int>(m_runs->size());
}

int ScheduleRunsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant ScheduleRunsModel::data(const QModelIndex& index, int role) const {
    const ScheduleRun* r = run(index.row());
    if (!r || !index.isValid()) return {};
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case StartColumn: return dateTime(r->startedAt);
        case DurationColumn: return r->endedAt ? durationText(r->seconds()) : tr("running");
        case BytesColumn: return formatBytes(static_cast<int64_t>(r->bytes));
        case ResultColumn: {
            // A run in progress in any process shows how far it is (the store's progress columns).
            const QString progress = runProgressText(*r);
            return progress.isEmpty() ? qs(runResultName(r->result)) : tr("running: %1").arg(progress);
        }
        case ErrorColumn: return QString::fromStdString(r->error.empty() ? r->note : r->error);
        case TriggerColumn: return qs(runTriggerName(r->trigger));
        }
        return {};
    case Qt::ToolTipRole: {
        QString tip = QString::fromStdString(r->checkpoint);
        if (!r->error.empty()) tip += QLatin1Char('\n') + QString::fromStdString(r->error);
        if (!r->note.empty()) tip += QLatin1Char('\n') + QString::fromStdString(r->note);
        return tip.trimmed();
    }
    case Qt::ForegroundRole:
        if (!resultTone(r->result)) return {};
        if (index.column() == ResultColumn || (index.column() == ErrorColumn && !r->error.empty()))
            return QBrush(statusTextColor(*resultTone(r->result)));
        return {};
    case Qt::TextAlignmentRole:
        if (index.column() == DurationColumn || index.column() == BytesColumn)
            return QVariant::fromValue(Qt::Alignment(Qt::AlignRight | Qt::AlignVCenter));
        return {};
    default: return {};
    }
}

QVariant ScheduleRunsModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
    case StartColumn: return tr("Started");
    case DurationColumn: return tr("Duration");
    case BytesColumn: return tr("Bytes");
    case ResultColumn: return tr("Result");
    case ErrorColumn: return tr("Error / note");
    case TriggerColumn: return tr("Trigger");
    }
    return {};
}

}  // namespace ckpt::ui
