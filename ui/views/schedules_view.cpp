#include "views/schedules_view.h"

#include <QDateTime>
#include <QDir>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLocale>
#include <QMessageBox>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include "jobs/job_pool.h"
#include "jobs/job_tracker.h"
#include "jobs/schedule_jobs.h"
#include "jobs/when_done.h"
#include "models/schedules_model.h"
#include "views/duration_sparkline.h"
#include "views/schedule_dialog.h"
#include "style/text_format.h"

namespace ckpt::ui {
namespace {

// Often enough that a run started elsewhere shows while it runs; a read
// is a few small SQLite queries.
constexpr int kRefreshMs = 3000;
// While a run is in progress: its progress, written by its scheduler about
// twice a second, shows with at most this delay.
constexpr int kRefreshRunningMs = 1000;
constexpr int kProgressMs = 100;
constexpr int kSparklineRuns = 60;

double nowSeconds() { return static_cast<double>(QDateTime::currentMSecsSinceEpoch()) / 1000.0; }

QString qs(std::string_view s) { return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())); }

QTableView* makeTable(QAbstractItemModel* model, QWidget* parent) {
    auto* table = new QTableView(parent);
    table->setModel(model);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->setSelectionMode(QAbstractItemView::SingleSelection);
    table->verticalHeader()->hide();
    table->setWordWrap(false);
    table->setAlternatingRowColors(true);
    table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    return table;
}

}  // namespace

SchedulesView::SchedulesView(JobTracker* jobs, QWidget* parent)
    : QWidget(parent), m_jobs(jobs), m_model(new SchedulesModel(this)), m_runsModel(new ScheduleRunsModel(this)),
      m_table(makeTable(m_model, this)), m_runsTable(makeTable(m_runsModel, this)), m_storeLabel(new QLabel(this)),
      m_runsTitle(new QLabel(this)), m_sparkline(new DurationSparkline(this)), m_new(new QPushButton(tr("&New\u2026"), this)),
      m_edit(new QPushButton(tr("&Edit\u2026"), this)), m_remove(new QPushButton(tr("Re&move\u2026"), this)),
      m_run(new QPushButton(tr("&Run Now"), this)), m_cancel(new QPushButton(tr("&Cancel Run"), this)),
      m_preview(new QPushButton(tr("Preview Re&tention"), this)), m_progress(new QProgressBar(this)), m_status(new QLabel(this)),
      m_refreshTimer(new QTimer(this)), m_progressTimer(new QTimer(this)) {
    m_table->setAccessibleName(tr("Schedules"));
    m_table->setItemDelegateForColumn(SchedulesModel::DurationsColumn,
                                      new DurationSparklineDelegate(SchedulesModel::DurationsRole, m_table));
    m_table->horizontalHeader()->setSectionResizeMode(SchedulesModel::RouteColumn, QHeaderView::Stretch);
    m_runsTable->setAccessibleName(tr("Runs of the selected schedule"));
    m_runsTable->horizontalHeader()->setSectionResizeMode(ScheduleRunsModel::ErrorColumn, QHeaderView::Stretch);
    m_storeLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_storeLabel->setEnabled(false);  // greyed: a detail
    m_run->setToolTip(tr("Run the selected schedule now, whether or not it is due"));
    m_cancel->setToolTip(tr("Stop the run at its next safe point; it is recorded as interrupted"));
    m_preview->setToolTip(tr("What the schedule's retention policy would keep and delete in its destination"));
    m_progress->setTextVisible(true);
    m_progress->setMaximumWidth(220);
    m_progress->hide();
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* buttons = new QHBoxLayout;
    for (QPushButton* b : {m_new, m_edit, m_remove, m_run, m_cancel, m_preview}) buttons->addWidget(b);
    buttons->addStretch();
    buttons->addWidget(m_storeLabel);

    auto* runsPane = new QWidget(this);
    auto* runsHeader = new QHBoxLayout;
    runsHeader->addWidget(m_runsTitle);
    runsHeader->addStretch();
    runsHeader->addWidget(m_sparkline);
    auto* runsLayout = new QVBoxLayout(runsPane);
    runsLayout->setContentsMargins(0, 0, 0, 0);
    runsLayout->addLayout(runsHeader);
    runsLayout->addWidget(m_runsTable, 1);

    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_table);
    split->addWidget(runsPane);
    split->setChildrenCollapsible(false);

    auto* progressRow = new QHBoxLayout;
    progressRow->addWidget(m_progress);
    progressRow->addWidget(m_status, 1);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(buttons);
    layout->addWidget(split, 1);
    layout->addLayout(progressRow);

    connect(m_new, &QPushButton::clicked, this, &SchedulesView::newSchedule);
    connect(m_edit, &QPushButton::clicked, this, &SchedulesView::editSelected);
    connect(m_table, &QTableView::doubleClicked, this, &SchedulesView::editSelected);
    connect(m_remove, &QPushButton::clicked, this, &SchedulesView::removeSelected);
    connect(m_run, &QPushButton::clicked, this, &SchedulesView::runSelected);
    connect(m_cancel, &QPushButton::clicked, this, &SchedulesView::cancelRun);
    connect(m_preview, &QPushButton::clicked, this, [this] {
        const ScheduleEntry* e = m_model->entry(m_table->currentIndex());
        if (!e) return;
        emit retentionPreviewRequested(QString::fromStdString(e->schedule.destination), e->schedule.retention,
                                       QString::fromStdString(scheduleOwner(e->schedule.name)));
    });
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &SchedulesView::onSelectionChanged);
    connect(m_model, &QAbstractItemModel::modelReset, this, &SchedulesView::onSelectionChanged);
    m_refreshTimer->setInterval(kRefreshMs);
    connect(m_refreshTimer, &QTimer::timeout, this, &SchedulesView::refresh);
    m_progressTimer->setInterval(kProgressMs);
    connect(m_progressTimer, &QTimer::timeout, this, [this] {
        if (!m_runJob) return;
        if (const int64_t pid = m_queuedPid ? m_queuedPid->exchange(0) : 0; pid != 0)
            setStatus(tr("%1: queued for the scheduler service (pid %2); its progress is read from the store\u2026")
                          .arg(m_runName)
                          .arg(pid));
        const int64_t total = m_runJob->total();
        // Unknown totals show as a busy bar rather than a stuck 0 %.
        m_progress->setRange(0, total > 0 ? 1000 : 0);
        if (total > 0) m_progress->setValue(static_cast<int>(1000 * m_runJob->done() / total));
    });
    setStatus({});
    onSelectionChanged();
}

SchedulesView::~SchedulesView() {
    // The run's job holds the token; the window waits for the pool.
    if (m_runJob) m_runJob->cancel();
}

void SchedulesView::setStorePath(const QString& path) {
    m_storePath = path;
    m_model->setSnapshot(nullptr);
    m_runsModel->setRuns(nullptr, 0);
    if (isVisible()) refresh();
}

QString SchedulesView::storePath() const {
    if (!m_storePath.isEmpty()) return m_storePath;
    return defaultScheduleStorePath(nullptr);
}

void SchedulesView::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    refresh();
    m_refreshTimer->start();
}

void SchedulesView::hideEvent(QHideEvent* event) {
    QWidget::hideEvent(event);
    m_refreshTimer->stop();
}

void SchedulesView::refresh() {
    if (m_readInFlight) {
        m_readAgain = true;
        return;
    }
    if (m_storePath.isEmpty()) {
        QString error;
        m_storePath = defaultScheduleStorePath(&error);
        if (m_storePath.isEmpty()) {
            m_storeLabel->setText(tr("No schedule store"));
            setStatus(error);
            emit refreshed(false);
            return;
        }
    }
    m_readInFlight = true;
    whenDone(this, QtConcurrent::run(jobPool(), readScheduleStore, m_storePath, nowSeconds()),
             [this, path = m_storePath](const ScheduleStoreSnapshot& snapshot) {
                 m_readInFlight = false;
                 if (path == m_storePath) onRead(std::make_shared<const ScheduleStoreSnapshot>(snapshot));
                 if (std::exchange(m_readAgain, false)) refresh();
             });
}

void SchedulesView::onRead(const std::shared_ptr<const ScheduleStoreSnapshot>& snapshot) {
    const QString nativePath = QDir::toNativeSeparators(snapshot->storePath);
    if (!snapshot->error.isEmpty()) {
        m_storeLabel->setText(tr("Store: %1").arg(nativePath));
        setStatus(snapshot->error);
        emit refreshed(false);
        return;
    }
    m_storeLabel->setText(snapshot->missing ? tr("Store: %1 (not created yet)").arg(nativePath)
                                            : tr("Store: %1").arg(nativePath));
    // A reset loses the current row: keep the selected schedule, or the one
    // just saved, by name.
    const QString wanted = m_pendingSelection.isEmpty() ? selectedName() : m_pendingSelection;
    m_model->setSnapshot(snapshot);
    bool running = false;
    for (const ScheduleEntry& e : snapshot->entries)
        running = running || (!e.runs.empty() && e.runs.front().result == RunResult::Running);
    m_refreshTimer->setInterval(running ? kRefreshRunningMs : kRefreshMs);
    if (!wanted.isEmpty()) selectSchedule(wanted);
    m_pendingSelection.clear();
    if (m_model->rowCount() > 0 && !m_table->currentIndex().isValid()) m_table->selectRow(0);
    onSelectionChanged();
    emit refreshed(true);
}

void SchedulesView::selectSchedule(const QString& name) {
    for (int r = 0; r < m_model->rowCount(); ++r)
        if (QString::fromStdString(m_model->entry(r)->schedule.name) == name) {
            m_pendingSelection.clear();
            if (m_table->currentIndex().row() != r) m_table->selectRow(r);
            return;
        }
    // Not read yet (just added): selected when the next read lands.
    m_pendingSelection = name;
}

QString SchedulesView::selectedName() const {
    const ScheduleEntry* e = m_model->entry(m_table->currentIndex());
    return e ? QString::fromStdString(e->schedule.name) : QString();
}

void SchedulesView::onSelectionChanged() {
    const ScheduleEntry* e = m_model->entry(m_table->currentIndex());
    m_runsModel->setRuns(m_model->snapshot(), e ? e->schedule.id : 0);
    if (e) {
        m_runsTitle->setText(tr("<b>Runs of %1</b> (%n recorded, newest first)", nullptr, static_cast<int>(e->runs.size()))
                                 .arg(QString::fromStdString(e->schedule.name).toHtmlEscaped()));
        m_sparkline->setDurations(recentDurations(*e, kSparklineRuns));
    } else {
        m_runsTitle->setText(m_model->rowCount() ? tr("<b>Runs</b>: select a schedule")
                                                 : tr("<b>No schedules yet.</b> New\u2026 creates one."));
        m_sparkline->setDurations({});
    }
    updateButtons();
}

void SchedulesView::updateButtons() {
    const ScheduleEntry* e = m_model->entry(m_table->currentIndex());
    const bool program = e && e->schedule.source == ScheduleSource::Program;
    m_edit->setEnabled(e && !program);
    m_remove->setEnabled(e != nullptr);
    m_preview->setEnabled(e != nullptr);
    m_run->setEnabled(e && !program && !m_runJob);
    m_run->setToolTip(program ? tr("A program's schedule runs when the program saves")
                              : tr("Run the selected schedule now, whether or not it is due"));
    // Without a run of its own the view cancels through the store whatever
    // process runs the schedule; a program's saves are its own.
    m_cancel->setEnabled(m_runJob ? !m_runJob->isCancelled() : !program && selectedIsRunning());
}

bool SchedulesView::selectedIsRunning() const {
    const ScheduleEntry* e = m_model->entry(m_table->currentIndex());
    return e && !e->runs.empty() && e->runs.front().result == RunResult::Running;
}

ScheduleDialog* SchedulesView::newSchedule() {
    Schedule suggestion;
    suggestion.source = m_suggestedSource.isEmpty() ? ScheduleSource::DemoTrainer : ScheduleSource::Directory;
    suggestion.sourcePath = m_suggestedSource.toStdString();
    suggestion.triggers.everySeconds = 3600;
    suggestion.retention.keepLatest = 5;
    auto* dialog = new ScheduleDialog(suggestion, this);
    connect(dialog, &QDialog::accepted, this, [this, dialog] { saveFromDialog(dialog); });
    connect(dialog, &QDialog::rejected, dialog, &QObject::deleteLater);
    dialog->open();
    return dialog;
}

ScheduleDialog* SchedulesView::editSelected() {
    const ScheduleEntry* e = m_model->entry(m_table->currentIndex());
    if (!e || e->schedule.source == ScheduleSource::Program) return nullptr;
    auto* dialog = new ScheduleDialog(e->schedule, this);
    connect(dialog, &QDialog::accepted, this, [this, dialog] { saveFromDialog(dialog); });
    connect(dialog, &QDialog::rejected, dialog, &QObject::deleteLater);
    dialog->open();
    return dialog;
}

void SchedulesView::saveFromDialog(ScheduleDialog* dialog) {
    const Schedule schedule = dialog->schedule();
    const QString name = QString::fromStdString(schedule.name);
    setStatus(tr("Saving %1\u2026").arg(name));
    QPointer<ScheduleDialog> guard(dialog);
    whenDone(this, QtConcurrent::run(jobPool(), saveSchedule, storePath(), schedule), [this, guard, name](const QString& error) {
        if (!error.isEmpty()) {
            // Back to the dialog with what the store said (a name already taken).
            setStatus(error);
            if (guard) {
                guard->showError(error);
                guard->open();
            }
            return;
        }
        if (guard) guard->deleteLater();
        setStatus(tr("Saved %1.").arg(name));
        m_pendingSelection = name;
        refresh();
    });
}

void SchedulesView::removeSelected() {
    const ScheduleEntry* e = m_model->entry(m_table->currentIndex());
    if (!e) return;
    const QString name = QString::fromStdString(e->schedule.name);
    const auto answer = QMessageBox::question(
        this, tr("Remove Schedule"),
        tr("Remove the schedule %1 and its %n recorded runs?\nThe checkpoints it wrote to %2 stay where they are.", nullptr,
           static_cast<int>(e->runs.size()))
            .arg(name, QDir::toNativeSeparators(QString::fromStdString(e->schedule.destination))),
        QMessageBox::Yes | QMessageBox::Cancel, QMessageBox::Cancel);
    if (answer != QMessageBox::Yes) return;
    whenDone(this, QtConcurrent::run(jobPool(), removeSchedule, storePath(), name), [this, name](const QString& error) {
        setStatus(error.isEmpty() ? tr("Removed %1.").arg(name) : error);
        refresh();
    });
}

void SchedulesView::runSelected() {
    const ScheduleEntry* e = m_model->entry(m_table->currentIndex());
    if (!e || m_runJob) return;
    const QString name = QString::fromStdString(e->schedule.name);
    auto job = m_jobs->start(tr("Running schedule %1").arg(name));
    m_runJob = job;
    m_runName = name;
    m_queuedPid = std::make_shared<std::atomic<int64_t>>(0);
    m_progress->setRange(0, 0);
    m_progress->show();
    m_progressTimer->start();
    setStatus(tr("Running %1\u2026").arg(name));
    updateButtons();
    whenDone(this, QtConcurrent::run(jobPool(), runScheduleNow, storePath(), name, job, m_queuedPid),
             [this, job, name](const RunNowResult& r) {
                 m_jobs->finish(job);
                 onRunDone(name, r);
             });
    // The run's `running` row shows while it runs.
    QTimer::singleShot(kProgressMs * 5, this, &SchedulesView::refresh);
}

void SchedulesView::cancelRun() {
    if (m_runJob) {
        // In-process: the token; queued for a service: the job sends the cancel request.
        m_runJob->cancel();
        setStatus(tr("Cancelling: the run stops at its next safe point\u2026"));
        updateButtons();
        return;
    }
    const QString name = selectedName();
    if (name.isEmpty() || !selectedIsRunning()) return;
    m_cancel->setEnabled(false);
    setStatus(tr("Asking the process running %1 to cancel it\u2026").arg(name));
    whenDone(this, QtConcurrent::run(jobPool(), cancelScheduleRunIn, storePath(), name), [this, name](const CancelRunResult& r) {
        if (!r.error.isEmpty()) setStatus(r.error);
        else if (r.runId)
            setStatus(tr("Asked run %1 of %2 to stop at its next safe point; it is recorded as interrupted "
                         "(a directory copy finishes first).")
                          .arg(*r.runId)
                          .arg(name));
        else setStatus(tr("Withdrew the queued run of %1 before it started.").arg(name));
        refresh();
    });
}

void SchedulesView::onRunDone(const QString& name, const RunNowResult& r) {
    m_runJob.reset();
    m_queuedPid.reset();
    m_progressTimer->stop();
    m_progress->hide();
    QString result;
    if (!r.run) {
        setStatus(tr("%1 could not run: %2").arg(name, r.error));
    } else {
        const ScheduleRun& run = *r.run;
        result = qs(runResultName(run.result));
        QString text = tr("%1: %2").arg(name, result);
        if (r.servicePid) text += tr(" (run by the scheduler service, pid %1)").arg(*r.servicePid);
        if (!run.checkpoint.empty()) text += tr(", %1").arg(QString::fromStdString(run.checkpoint));
        if (run.bytes) text += tr(", %1").arg(formatBytes(static_cast<int64_t>(run.bytes)));
        text += tr(" in %1").arg(durationText(run.seconds()));
        if (!run.error.empty()) text += QStringLiteral(": ") + QString::fromStdString(run.error);
        else if (!run.note.empty()) text += QStringLiteral(" (") + QString::fromStdString(run.note) + QLatin1Char(')');
        setStatus(text);
    }
    updateButtons();
    refresh();
    emit runFinished(name, result);
}

void SchedulesView::setStatus(const QString& text) {
    m_status->setText(text);
    m_status->setVisible(!text.isEmpty());
}

}  // namespace ckpt::ui
