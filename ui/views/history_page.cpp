#include "views/history_page.h"

#include <QChart>
#include <QChartView>
#include <QLabel>
#include <QLineSeries>
#include <QLocale>
#include <QPushButton>
#include <QScatterSeries>
#include <QScrollArea>
#include <QTimer>
#include <QValueAxis>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <cmath>

#include "ckpt/dtype.h"
#include "jobs/checkpoint_jobs.h"
#include "jobs/history_jobs.h"
#include "jobs/job_pool.h"
#include "jobs/job_tracker.h"
#include "jobs/when_done.h"
#include "views/history_chart_view.h"
#include "views/movement_strip.h"
#include "views/round_ticks.h"
#include "style/text_format.h"

namespace ckpt::ui {
namespace {

void clearChart(QChart* chart) {
    chart->removeAllSeries();
    for (QAbstractAxis* a : chart->axes()) {
        chart->removeAxis(a);
        delete a;
    }
    chart->setTitle({});
}

// x of each checkpoint: its step when every checkpoint has one, else its position.
std::vector<double> stepAxis(const CheckpointHistory& h) {
    const bool steps = std::all_of(h.checkpoints.begin(), h.checkpoints.end(), [](const auto& c) { return c.step.has_value(); });
    std::vector<double> xs;
    for (size_t i = 0; i < h.checkpoints.size(); ++i)
        xs.push_back(steps ? static_cast<double>(*h.checkpoints[i].step) : static_cast<double>(i));
    return xs;
}

// One line through the finite values, with a marker per checkpoint that
// names its step and value under the pointer.
void plotLine(HistoryChartView* view, const CheckpointHistory& h, const VariableHistory& v, double HistoryPoint::*field,
              const QString& title, const QString& valueName) {
    QChart* chart = view->chart();
    clearChart(chart);
    const std::vector<double> xs = stepAxis(h);
    auto* line = new QLineSeries;
    auto* dots = new QScatterSeries;
    dots->setMarkerSize(7);
    QStringList tips;
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < v.points.size() && i < xs.size(); ++i) {
        const HistoryPoint& p = v.points[i];
        const double y = p.*field;
        if (!p.present || !std::isfinite(y)) continue;
        line->append(xs[i], y);
        dots->append(xs[i], y);
        tips << HistoryPage::tr("%1\n%2 %3").arg(checkpointLabel(h.checkpoints[i]), valueName, QLocale().toString(y, 'g', 6));
        lo = std::min(lo, y);
        hi = std::max(hi, y);
    }
    chart->setTitle(title);
    chart->addSeries(line);
    chart->addSeries(dots);
    const QColor colour = view->palette().color(QPalette::Highlight);
    line->setColor(colour);
    dots->setColor(colour);
    dots->setBorderColor(colour.darker(130));
    auto* x = new QValueAxis;
    const double x0 = xs.empty() ? 0 : xs.front(), x1 = xs.empty() ? 1 : xs.back();
    const double pad = std::max(1e-9, (x1 - x0) * 0.04);
    x->setRange(x0 - pad, x1 + pad);
    x->setLabelFormat(QStringLiteral("%.0f"));
    x->setTitleText(QObject::tr("step"));
    auto* y = new QValueAxis;
    if (lo > hi) lo = hi = 0;
    const double ypad = std::max(std::abs(hi) * 1e-6, (hi - lo) * 0.08);
    // Non-negative figures (norms, changes) keep zero as the floor.
    y->setRange(lo >= 0 ? std::max(0.0, lo - ypad) : lo - ypad, hi + ypad);
    y->applyNiceNumbers();
    y->setLabelFormat(QStringLiteral("%.3g"));
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    // Round steps, whole ones, not the padded ends; as many as their labels fit.
    new RoundTicks(chart, x, 1);
    for (QAbstractSeries* s : {static_cast<QAbstractSeries*>(line), static_cast<QAbstractSeries*>(dots)}) {
        s->attachAxis(x);
        s->attachAxis(y);
    }
    view->setPoints(dots->points(), tips);
}

}  // namespace

HistoryPage::HistoryPage(JobTracker* jobs, QWidget* parent)
    : InspectorPage(parent), m_jobs(jobs), m_title(new QLabel(this)), m_message(new QLabel(this)), m_normChart(new QChart),
      m_changeChart(new QChart), m_normView(new HistoryChartView(m_normChart, tr("Norm per checkpoint"), this)),
      m_changeView(new HistoryChartView(m_changeChart, tr("Relative change per checkpoint"), this)),
      m_runButton(new QPushButton(tr("Show what &moved in the whole run"), this)), m_runMessage(new QLabel(this)),
      m_strip(new MovementStrip), m_scroll(new QScrollArea(this)) {
    auto* content = new QWidget;
    auto* layout = new QVBoxLayout(content);
    m_title->setWordWrap(true);
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_title);
    m_message->setWordWrap(true);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_message->setAccessibleName(tr("History status"));
    layout->addWidget(m_message);
    layout->addWidget(m_normView, 1);
    layout->addWidget(m_changeView, 1);
    m_runButton->setToolTip(tr("Reads every weight of every checkpoint in the directory (optimizer state left out)"));
    layout->addWidget(m_runButton, 0, Qt::AlignLeft);
    m_runMessage->setWordWrap(true);
    m_runMessage->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_runMessage);
    m_strip->setAccessibleName(tr("What moved: variables by checkpoint"));
    layout->addWidget(m_strip);
    layout->addStretch();
    m_scroll->setWidget(content);
    m_scroll->setWidgetResizable(true);
    m_scroll->setFrameShape(QFrame::NoFrame);
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->addWidget(m_scroll);
    connect(m_runButton, &QPushButton::clicked, this, &HistoryPage::showRun);
    connect(m_strip, &MovementStrip::variableClicked, this, [this](int variable) {
        // The run's history already holds every weight: chart the row clicked.
        const auto& h = m_strip->history();
        m_key = QString::fromStdString(h->variables[static_cast<size_t>(variable)].key);
        m_label = QString::fromStdString(h->variables[static_cast<size_t>(variable)].path);
        ++m_generation;
        if (m_variableJob) m_variableJob->cancel();
        showVariable(h, variable);
    });
    clearCharts();
}

HistoryPage::~HistoryPage() {
    if (m_variableJob) m_variableJob->cancel();
    if (m_runJob) m_runJob->cancel();
}

QString HistoryPage::message() const { return m_message->text(); }

void HistoryPage::setSelection(const TensorSelection& selection) {
    if (!selection.snapshot || !selection.info) return setVariable({}, {}, {});
    setVariable(directoryFor(QString::fromStdString(selection.snapshot->checkpoint->prefix())),
                QString::fromStdString(selection.info->key), selection.path);
}

void HistoryPage::setVariable(const QString& directory, const QString& key, const QString& label) {
    if (directory == m_directory && key == m_key) return;
    m_directory = directory;
    m_key = key;
    m_label = label;
    ++m_generation;
    if (m_variableJob) {
        m_variableJob->cancel();
        m_jobs->finish(m_variableJob);
        m_variableJob.reset();
    }
    m_history.reset();
    m_variable = -1;
    clearCharts();
    if (m_runDirectory != m_directory) {
        m_strip->setStrip(nullptr, {}, {}, 0, 0);
        m_runMessage->clear();
        m_runDirectory.clear();
    }
    m_runButton->setEnabled(!m_directory.isEmpty());
    if (m_key.isEmpty()) {
        m_message->setText(tr("Select a variable to chart it across the checkpoints of its directory."));
        return;
    }
    m_stale = true;
    if (isVisible()) start();
}

void HistoryPage::showEvent(QShowEvent* event) {
    InspectorPage::showEvent(event);
    if (m_stale) start();
}

void HistoryPage::start() {
    m_stale = false;
    if (m_key.isEmpty()) return;
    const quint64 generation = m_generation;
    m_message->setText(tr("Reading %1 from every checkpoint in %2\u2026").arg(m_label, m_directory));
    auto job = m_jobs->start(tr("History of %1").arg(m_label));
    m_variableJob = job;
    whenDone(this, QtConcurrent::run(jobPool(), computeVariableHistory, m_directory, m_key, job),
             [this, job, generation](const HistoryResult& r) {
                 m_jobs->finish(job);
                 if (generation != m_generation) return;
                 m_variableJob.reset();
                 if (!r.history) {
                     m_message->setText(r.cancelled ? tr("Cancelled.") : r.error);
                     emit historyReady(false);
                     return;
                 }
                 int found = -1;
                 for (size_t i = 0; i < r.history->variables.size() && found < 0; ++i)
                     if (QString::fromStdString(r.history->variables[i].key) == m_key) found = static_cast<int>(i);
                 if (found < 0 && !r.history->variables.empty()) found = 0;
                 showVariable(r.history, found);
                 emit historyReady(found >= 0);
             });
}

void HistoryPage::clearCharts() {
    clearChart(m_normChart);
    clearChart(m_changeChart);
    m_normView->setPoints({}, {});
    m_changeView->setPoints({}, {});
    // Empty frames say nothing: the charts show only with something in them.
    m_normView->hide();
    m_changeView->hide();
    m_title->clear();
}

void HistoryPage::showVariable(std::shared_ptr<const CheckpointHistory> history, int variable) {
    m_history = std::move(history);
    m_variable = variable;
    clearCharts();
    if (variable < 0) {
        m_message->setText(tr("No checkpoint in %1 holds %2.").arg(m_directory, m_key));
        return;
    }
    const VariableHistory& v = m_history->variables[static_cast<size_t>(variable)];
    m_title->setText(tr("<b>%1</b><br>%2 %3 over %n checkpoint(s)", nullptr, static_cast<int>(m_history->checkpoints.size()))
                         .arg(QString::fromStdString(v.path).toHtmlEscaped(), QString::fromLatin1(dataTypeShortName(v.dtype)),
                              QString::fromStdString(v.shape.toString())));
    QStringList notes;
    if (v.firstNonFinite)
        notes
            << tr("NaN or Inf first at %1").arg(checkpointLabel(m_history->checkpoints[static_cast<size_t>(*v.firstNonFinite)]));
    const auto present = std::count_if(v.points.begin(), v.points.end(), [](const HistoryPoint& p) { return p.present; });
    if (present < static_cast<qsizetype>(v.points.size()))
        notes << tr("absent from %n checkpoint(s)", nullptr, static_cast<int>(v.points.size() - static_cast<size_t>(present)));
    const bool numeric = std::any_of(v.points.begin(), v.points.end(), [](const HistoryPoint& p) { return p.numeric; });
    if (!numeric) notes << tr("not numeric: nothing to chart");
    // One checkpoint is a point, not a history: said in words, the norm
    // with it, rather than two empty frames.
    const bool single = present < 2;
    if (numeric && single) {
        const auto at = std::find_if(v.points.begin(), v.points.end(), [](const HistoryPoint& p) { return p.present; });
        QString only = tr("Only one checkpoint in %1 holds it: a history needs two or more.").arg(m_directory);
        if (at != v.points.end() && std::isfinite(at->norm))
            only += QLatin1Char(' ') + tr("Its L2 norm is %1.").arg(QLocale().toString(at->norm, 'g', 6));
        notes << only;
    }
    m_message->setText(notes.join(QStringLiteral(" \u00b7 ")));
    m_message->setVisible(!notes.isEmpty());
    if (!numeric || single) return;
    plotLine(m_normView, *m_history, v, &HistoryPoint::norm, tr("L2 norm"), tr("norm"));
    plotLine(m_changeView, *m_history, v, &HistoryPoint::relChange, tr("Relative change since the previous checkpoint"),
             tr("relative change"));
    m_normView->show();
    m_changeView->show();
}

void HistoryPage::showRun() {
    if (m_directory.isEmpty() || m_runJob) return;
    const quint64 generation = ++m_runGeneration;
    const QString directory = m_directory;
    m_runButton->setEnabled(false);
    m_runMessage->setText(tr("Reading every weight of every checkpoint in %1\u2026").arg(directory));
    auto job = m_jobs->start(tr("Run history of %1").arg(directory));
    m_runJob = job;
    whenDone(this, QtConcurrent::run(jobPool(), computeRunHistory, directory, job),
             [this, job, generation](const HistoryResult& r) {
                 m_jobs->finish(job);
                 if (generation != m_runGeneration) return;
                 m_runJob.reset();
                 m_runButton->setEnabled(!m_directory.isEmpty());
                 showRunResult(r);
             });
}

void HistoryPage::showRunResult(const HistoryResult& r) {
    if (!r.history) {
        m_runMessage->setText(r.cancelled ? tr("Cancelled.") : r.error);
        emit runReady(false);
        return;
    }
    m_runDirectory = r.directory;
    const CheckpointHistory& h = *r.history;
    QStringList lines{tr("%1 over %2, read %3")
                          .arg(tr("%n weight(s)", nullptr, static_cast<int>(h.variables.size())),
                               tr("%n checkpoint(s)", nullptr, static_cast<int>(h.checkpoints.size())))
                          .arg(formatBytes(h.bytesRead))};
    if (!h.summary.movedMost.empty())
        lines << tr("Moved most: %1")
                     .arg(QString::fromStdString(h.variables[static_cast<size_t>(h.summary.movedMost.front())].path));
    if (h.summary.firstNonFinite)
        lines << tr("First NaN/Inf: %1 in %2")
                     .arg(QString::fromStdString(h.summary.firstNonFiniteVariable),
                          checkpointLabel(h.checkpoints[static_cast<size_t>(*h.summary.firstNonFinite)]));
    lines << tr("Click a row to chart that weight.");
    m_runMessage->setText(lines.join(QLatin1Char('\n')));
    if (r.strip && r.strip->heatmap) {
        m_strip->setStrip(r.history, r.strip->image, r.strip->colorbar, r.strip->heatmap->lo, r.strip->heatmap->hi);
        // Asked for, so brought into view (it sits under the charts).
        QTimer::singleShot(0, this, [this] { m_scroll->ensureWidgetVisible(m_strip, 0, 0); });
    } else if (r.strip) m_runMessage->setText(r.strip->error);
    emit runReady(r.strip && r.strip->heatmap);
}

}  // namespace ckpt::ui
