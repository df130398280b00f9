#include "views/compare_detail.h"

#include <QFileInfo>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSplitter>
#include <QTabWidget>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <cmath>

#include "jobs/checkpoint_jobs.h"
#include "jobs/compare_jobs.h"
#include "jobs/job_pool.h"
#include "jobs/job_tracker.h"
#include "jobs/when_done.h"
#include "models/object_tree_model.h"
#include "views/history_page.h"
#include "views/pair_heatmap_panel.h"
#include "views/pair_histogram_panel.h"
#include "views/wrapping_label.h"
#include "style/text_format.h"

namespace ckpt::ui {
namespace {

QString num(double v, int precision = 6) {
    if (std::isnan(v)) return CompareDetail::tr("n/a");
    if (std::isinf(v)) return v > 0 ? QStringLiteral("\u221e") : QStringLiteral("-\u221e");
    return QLocale().toString(v, 'g', precision);
}
QString count(int64_t n) { return QLocale().toString(static_cast<qlonglong>(n)); }
QString checkpointName(const Checkpoint& c) { return QFileInfo(QString::fromStdString(c.prefix())).fileName(); }

// The engine's findings for one entry, as an HTML table. Rows close
// together (no cell spacing): the whole table reads without scrolling in a
// 1024x700 window.
QString figuresHtml(const DiffEntry& e) {
    QString rows;
    auto row = [&rows](const QString& label, const QString& value) {
        rows += QStringLiteral("<tr><td>%1&nbsp;</td><td>%2</td></tr>").arg(label, value.toHtmlEscaped());
    };
    if (e.a && !e.a->key.empty()) row(CompareDetail::tr("A key"), QString::fromStdString(e.a->key));
    if (e.b && !e.b->key.empty() && (!e.a || e.a->key != e.b->key))
        row(CompareDetail::tr("B key"), QString::fromStdString(e.b->key));
    if (const QString type = entryTypeText(e); !type.isEmpty()) row(CompareDetail::tr("Type"), type);
    if (e.role == DiffRole::Object) row(CompareDetail::tr("Values"), count(e.members));
    if (!e.slotOf.empty())
        row(CompareDetail::tr("Slot"),
            CompareDetail::tr("%1 of %2 (%3)")
                .arg(QString::fromStdString(e.slotName), QString::fromStdString(e.slotOf), QString::fromStdString(e.optimizer)));
    if (e.values) {
        const TensorDiff& v = *e.values;
        if (v.fromChecksums) row(CompareDetail::tr("Values"), CompareDetail::tr("equal stored checksums and sizes: not read"));
        const double share = v.elements > 0 ? 100.0 * static_cast<double>(v.mismatches) / static_cast<double>(v.elements) : 0;
        row(CompareDetail::tr("Mismatches"),
            CompareDetail::tr("%1 of %2 (%3%)").arg(count(v.mismatches), count(v.elements), num(share, 3)));
        const QString tolerance = v.tolerance.exact
                                      ? CompareDetail::tr("exact")
                                      : CompareDetail::tr("atol %1, rtol %2").arg(num(v.tolerance.atol), num(v.tolerance.rtol));
        row(CompareDetail::tr("Tolerance"), tolerance);
        if (v.maxAbsIndex >= 0)
            row(CompareDetail::tr("Max |\u0394|"),
                CompareDetail::tr("%1 at flat index %2").arg(num(v.maxAbsDiff)).arg(v.maxAbsIndex));
        if (v.maxRelIndex >= 0)
            row(CompareDetail::tr("Max rel. \u0394"),
                CompareDetail::tr("%1 at flat index %2").arg(num(v.maxRelDiff)).arg(v.maxRelIndex));
        row(CompareDetail::tr("Mean |\u0394|"), num(v.meanAbsDiff));
        row(CompareDetail::tr("L2 norms"),
            CompareDetail::tr("A %1, B %2, A\u2212B %3").arg(num(v.normA), num(v.normB), num(v.normDiff)));
        row(CompareDetail::tr("Rel. L2"), num(v.relL2));
        row(CompareDetail::tr("Cosine"), num(v.cosine, 8));
        if (v.nansAppeared || v.nansDisappeared || v.infsAppeared || v.infsDisappeared)
            row(CompareDetail::tr("Non-finite"),
                CompareDetail::tr("NaN +%1 / \u2212%2, Inf +%3 / \u2212%4")
                    .arg(count(v.nansAppeared), count(v.nansDisappeared), count(v.infsAppeared), count(v.infsDisappeared)));
    }
    return QStringLiteral("<table cellspacing=\"0\">%1</table>").arg(rows);
}

// The first differing elements, a list below the figures: the one part of
// the pane that may need scrolling.
QString elementsHtml(const DiffEntry& e) {
    if (!e.values || e.values->firstMismatches.empty()) return {};
    QStringList first;
    for (const DifferingElement& d : e.values->firstMismatches)
        first << CompareDetail::tr("[%1] %2 \u2192 %3")
                     .arg(d.index)
                     .arg(QString::fromStdString(d.a), QString::fromStdString(d.b))
                     .toHtmlEscaped();
    return CompareDetail::tr("<b>First differing</b> (flat index: A \u2192 B)<br>%1").arg(first.join(QStringLiteral(", ")));
}

}  // namespace

CompareDetail::CompareDetail(JobTracker* jobs, QWidget* parent)
    : QWidget(parent), m_jobs(jobs), m_title(new WrappingLabel(this)), m_figures(new WrappingLabel(this)),
      m_elements(new WrappingLabel(this)), m_load(new QPushButton(tr("&Load values"), this)), m_tabs(new QTabWidget(this)),
      m_heatmaps(new PairHeatmapPanel(this)), m_histograms(new PairHistogramPanel(this)), m_history(new HistoryPage(jobs, this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 0, 0, 0);
    m_split = new QSplitter(Qt::Vertical, this);
    // The figures scroll in their own pane above the tabs, split with them:
    // below them, the heatmaps of a 700 px window were out of sight.
    m_split->setChildrenCollapsible(false);
    m_split->addWidget(createFiguresPane());
    m_split->addWidget(createTabs());
    // Once the user drags the handle, a resize keeps their proportion (the
    // stretch factors weigh the current sizes) and fitSplit() stands back.
    m_split->setStretchFactor(0, 2);
    m_split->setStretchFactor(1, 3);
    connect(m_split, &QSplitter::splitterMoved, this, [this] { m_userSplit = true; });
    layout->addWidget(m_split, 1);
    setNode(nullptr, -1);
}

void CompareDetail::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    fitSplit();  // the layout has already resized the splitter
}

void CompareDetail::fitSplit() {
    const int total = m_split->height() - m_split->handleWidth();
    if (m_userSplit || total <= 0) return;
    // What the figures need at this width, up to two fifths: in a 1024x700
    // window every figure then reads without scrolling (a third cut them off
    // after "Mean |Δ|"); in a larger one the heatmaps get what the figures
    // leave empty. Where the differing elements do not fit as well, the pane
    // ends above them rather than cut a line of them in half: they scroll.
    const int width = m_figuresPane->width(), cap = total * 2 / 5;
    const int need = m_figuresPane->widget()->heightForWidth(width);
    int figures = need;
    if (need > cap) {
        // Measured beside the scroll bar the pane will show: narrower, the
        // text may wrap into one more line.
        const int inner = width - m_figuresPane->verticalScrollBar()->sizeHint().width();
        const int spacing = m_figuresPane->widget()->layout()->spacing();
        int above = m_title->heightForWidth(inner) + spacing + m_figures->heightForWidth(inner);
        if (m_load->isVisibleTo(this)) above += spacing + m_load->sizeHint().height();
        figures = above <= cap ? above : cap;
    }
    figures = std::max(figures, m_figuresPane->minimumHeight());
    m_split->setSizes({figures, total - figures});
}

QWidget* CompareDetail::createFiguresPane() {
    auto* figures = new QWidget(this);
    auto* layout = new QVBoxLayout(figures);
    layout->setContentsMargins(0, 0, 0, 0);
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_title);
    m_figures->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_figures->setAccessibleName(tr("Comparison figures"));
    layout->addWidget(m_figures);
    layout->addWidget(m_load, 0, Qt::AlignLeft);
    m_elements->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_elements->setAccessibleName(tr("First differing elements"));
    layout->addWidget(m_elements);
    layout->addStretch();
    connect(m_load, &QPushButton::clicked, this, &CompareDetail::loadValues);
    m_figuresPane = new QScrollArea(this);
    m_figuresPane->setWidget(figures);
    m_figuresPane->setWidgetResizable(true);
    m_figuresPane->setFrameShape(QFrame::NoFrame);
    m_figuresPane->setMinimumHeight(80);
    return m_figuresPane;
}

QTabWidget* CompareDetail::createTabs() {
    m_tabs->setDocumentMode(true);
    // Whole names, never "Statis…": a narrow pane scrolls the tabs instead.
    m_tabs->setElideMode(Qt::ElideNone);
    m_tabs->setUsesScrollButtons(true);
    // The heatmaps' page scrolls as a whole: squeezed under the figures, the
    // layout shrank the slice controls below their height instead.
    m_heatmapsPage = new QScrollArea(this);
    m_heatmapsPage->setWidget(m_heatmaps);
    m_heatmapsPage->setWidgetResizable(true);
    m_heatmapsPage->setFrameShape(QFrame::NoFrame);
    m_tabs->addTab(m_heatmapsPage, tr("Heatmaps"));
    m_tabs->addTab(m_histograms, tr("Histograms"));
    m_tabs->addTab(m_history, tr("History"));
    m_tabs->setMinimumHeight(160);
    return m_tabs;
}

CompareDetail::~CompareDetail() {
    if (m_readJob) m_readJob->cancel();
}

QString CompareDetail::figuresText() const { return m_figures->text(); }

void CompareDetail::setNode(std::shared_ptr<const CompareSnapshot> snapshot, int32_t node) {
    // The row already shown (re-selected after a filter): keep its values.
    if (snapshot && snapshot == m_snapshot && node == m_node) return;
    m_snapshot = std::move(snapshot);
    m_node = m_snapshot ? node : -1;
    ++m_generation;
    if (m_readJob) {
        m_jobs->finish(m_readJob);
        m_readJob.reset();
    }
    m_values.reset();
    m_load->hide();
    const DiffEntry* e = m_node > 0 ? m_snapshot->entry(m_node) : nullptr;
    const QString nameA = m_snapshot ? checkpointName(*m_snapshot->a) : QString();
    const QString nameB = m_snapshot ? checkpointName(*m_snapshot->b) : QString();
    m_heatmaps->setValues(nullptr, nameA, nameB);
    m_histograms->setValues(nullptr, nameA, nameB);
    if (m_node <= 0) {
        m_title->setText(m_snapshot ? tr("Select a row to see how A and B differ.") : QString());
        m_figures->setText({});
        m_elements->clear();
        m_elements->hide();
        m_history->setVariable({}, {}, {});
        fitSplit();
        return;
    }
    const DiffTreeNode& n = m_snapshot->node(m_node);
    const QString status = QString::fromLatin1(diffStatusName(n.status));
    const QString path = e ? entryPathText(*e) : nodeLocation(*m_snapshot, m_node).join(QLatin1Char('/'));
    // The status on the path's line when it fits: one line more for the figures.
    m_title->setText(QStringLiteral("<b>%1</b>&nbsp;&nbsp; %2").arg(path.toHtmlEscaped(), status));
    m_figures->setText(e ? figuresHtml(*e) : tr("An object: select one of its values."));
    m_elements->setText(e ? elementsHtml(*e) : QString());
    m_elements->setVisible(!m_elements->text().isEmpty());
    fitSplit();
    // History follows the value in B's directory (A's, for a deletion).
    const DiffSide* side = e ? (e->b ? &*e->b : e->a ? &*e->a : nullptr) : nullptr;
    const Checkpoint& where = e && e->b ? *m_snapshot->b : *m_snapshot->a;
    if (side && !side->key.empty())
        m_history->setVariable(directoryFor(QString::fromStdString(where.prefix())), QString::fromStdString(side->key), path);
    else m_history->setVariable({}, {}, {});
    if (!e || e->role == DiffRole::Object) return;
    const int64_t bytes = (e->a ? e->a->bytes : 0) + (e->b ? e->b->bytes : 0);
    if (bytes > kAutoLoadBytes) {
        m_figures->setText(m_figures->text() +
                           tr("<p>These values hold %1; they are read only on request.</p>").arg(formatBytes(bytes)));
        m_load->show();
        fitSplit();
        return;
    }
    loadValues();
}

void CompareDetail::loadValues() {
    if (!m_snapshot || m_node <= 0) return;
    m_load->hide();
    const quint64 generation = m_generation;
    const DiffEntry* e = m_snapshot->entry(m_node);
    auto job = m_jobs->start(tr("Reading A and B of %1").arg(e ? QString::fromStdString(e->displayPath()) : QString()));
    m_readJob = job;
    whenDone(this, QtConcurrent::run(jobPool(), readPairValues, m_snapshot, m_node),
             [this, job, generation](const PairValues& r) {
                 m_jobs->finish(job);
                 if (generation != m_generation) return;  // a newer row was selected
                 m_readJob.reset();
                 if (!r.error.isEmpty()) {
                     m_figures->setText(m_figures->text() + QStringLiteral("<p>%1</p>").arg(r.error.toHtmlEscaped()));
                     fitSplit();
                     emit valuesReady(false);
                     return;
                 }
                 m_values = std::make_shared<const PairValues>(r);
                 const QString nameA = checkpointName(*m_snapshot->a), nameB = checkpointName(*m_snapshot->b);
                 m_heatmaps->setValues(m_values, nameA, nameB);
                 m_histograms->setValues(m_values, nameA, nameB);
                 emit valuesReady(true);
             });
}

}  // namespace ckpt::ui
