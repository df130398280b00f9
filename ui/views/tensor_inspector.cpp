#include "views/tensor_inspector.h"

#include <QFormLayout>
#include <QLocale>
#include <QLabel>
#include <QPushButton>
#include <QTabWidget>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include "ckpt/dtype.h"
#include "jobs/checkpoint_jobs.h"
#include "jobs/job_pool.h"
#include "jobs/when_done.h"
#include "jobs/job_tracker.h"
#include "models/object_tree_model.h"
#include "views/heatmap_page.h"
#include "views/histogram_page.h"
#include "views/history_page.h"
#include "views/preview_page.h"
#include "views/stats_page.h"
#include "views/tab_overflow.h"
#include "views/values_page.h"
#include "style/text_format.h"

namespace ckpt::ui {
namespace {

enum Field { KeyField, DTypeField, ShapeField, ElementsField, StoredField, LocationField, kFieldCount };

QString hex32(uint32_t v) { return QStringLiteral("0x%1").arg(v, 8, 16, QLatin1Char('0')); }

}  // namespace

TensorInspector::TensorInspector(JobTracker* jobs, QWidget* parent)
    : QWidget(parent), m_jobs(jobs), m_title(new QLabel(this)), m_form(new QFormLayout), m_status(new QLabel(this)),
      m_load(new QPushButton(tr("&Load values"), this)), m_tabs(new QTabWidget(this)), m_overflow(new TabOverflow(m_tabs)),
      m_values(new ValuesPage(this)) {
    auto* layout = new QVBoxLayout(this);
    QFont f = m_title->font();
    f.setBold(true);
    m_title->setFont(f);
    m_title->setWordWrap(true);
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_title);
    const QStringList labels{tr("Key:"), tr("DType:"), tr("Shape:"), tr("Elements:"), tr("Stored:"), tr("Location:")};
    for (const QString& l : labels) {
        auto* value = new QLabel;
        value->setTextInteractionFlags(Qt::TextSelectableByMouse);
        value->setWordWrap(true);
        value->setAccessibleName(l.chopped(1));
        m_form->addRow(l, value);
        m_fields.append(value);
    }
    m_form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    // The rows show and hide together, as one widget: hiding QFormLayout rows
    // one by one makes Qt 6.4's heightForWidth write past its row arrays
    // (valgrind: invalid writes in QFormLayout::heightForWidth, then crashes).
    m_formBox = new QWidget(this);
    m_form->setContentsMargins(0, 0, 0, 0);
    m_formBox->setLayout(m_form);
    layout->addWidget(m_formBox);
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_status);
    layout->addWidget(m_load, 0, Qt::AlignLeft);
    m_load->setAccessibleName(tr("Load tensor values"));
    connect(m_load, &QPushButton::clicked, this, &TensorInspector::loadValues);
    m_tabs->setDocumentMode(true);
    // Whole names, never "Statis…" nor a tab cut at the pane's edge: the
    // tabs that do not fit go to a "»" menu (m_overflow).
    m_tabs->setAccessibleName(tr("Tensor views"));
    layout->addWidget(m_tabs, 1);
    // Takes the space only while the tabs are hidden, so metadata stays at the top.
    layout->addStretch(0);
    setAccessibleName(tr("Tensor inspector"));
    addPage(m_values);
    addPage(new StatsPage(this));
    addPage(new HistogramPage(this));
    addPage(new HeatmapPage(this));
    addPage(new HistoryPage(m_jobs, this));
    setSelection({});
}

TensorInspector::~TensorInspector() = default;

void TensorInspector::setCatalogPath(const QString& path) {
    for (InspectorPage* page : std::as_const(m_pages))
        if (auto* preview = qobject_cast<PreviewPage*>(page)) preview->setCatalogPath(path);
}

void TensorInspector::addPage(InspectorPage* page) {
    m_pages.append(page);
    m_tabs->addTab(page, page->pageTitle());
    m_overflow->fit();
    page->setSelection(m_selection);
}

void TensorInspector::setField(int row, const QString& text) { m_fields[row]->setText(text); }

void TensorInspector::setSelection(const TensorSelection& selection) {
    m_selection = selection;
    ++m_generation;
    m_loading = false;
    // The read of the previous selection is not waited for any more.
    if (m_readJob) {
        m_readJob->cancel();
        m_jobs->finish(m_readJob);
        m_readJob.reset();
    }
    m_load->hide();
    m_status->clear();
    m_status->hide();
    for (InspectorPage* p : std::as_const(m_pages)) p->setSelection(selection);
    const TensorInfo* t = selection.info;
    if (!selection.snapshot) m_title->clear();  // the centre already says nothing is open
    else if (!t)
        m_title->setText(selection.path.isEmpty()
                             ? tr("Select a variable in the object graph to inspect its tensor: its dtype, shape and "
                                  "storage, its values, statistics, histogram, heatmap and history across the run.")
                             : tr("%1\n\nThis object holds no tensor of its own; select a variable.").arg(selection.path));
    else m_title->setText(selection.path);
    m_formBox->setVisible(t != nullptr);
    m_tabs->setVisible(t != nullptr);
    if (!t) return;
    setField(KeyField, QString::fromStdString(t->key));
    setField(DTypeField, QStringLiteral("%1 (%2)").arg(QString::fromLatin1(dataTypeShortName(t->dtype)),
                                                       QString::fromLatin1(dataTypeName(t->dtype))));
    setField(ShapeField, QString::fromStdString(t->shape.toString()));
    const auto n = t->shape.numElements();
    setField(ElementsField, n ? QLocale().toString(static_cast<qlonglong>(*n)) : tr("overflows int64"));
    setField(
        StoredField,
        tr("%1 (%2 bytes)").arg(formatBytes(t->storedBytes()), QLocale().toString(static_cast<qlonglong>(t->storedBytes()))));
    if (t->isPartitioned())
        setField(LocationField, tr("partitioned into %n slice(s)", nullptr, static_cast<int>(t->slices.size())));
    else
        setField(
            LocationField,
            tr("shard %1, offset %2, crc32c %3").arg(t->region.shardId).arg(t->region.offset).arg(hex32(t->region.maskedCrc32c)));
    if (!isDecodable(t->dtype)) {
        const QString text = tr("%1 values cannot be decoded.").arg(QString::fromLatin1(dataTypeName(t->dtype)));
        m_status->setText(text);
        m_status->show();
        for (InspectorPage* p : std::as_const(m_pages)) p->setValuesState(ValuesState::Undecodable, text);
        emit valuesReady(false);
        return;
    }
    if (t->storedBytes() > kAutoLoadBytes) {
        m_status->setText(tr("This tensor holds %1; its values are read only on request.").arg(formatBytes(t->storedBytes())));
        m_status->show();
        m_load->show();
        for (InspectorPage* p : std::as_const(m_pages)) p->setValuesState(ValuesState::OnRequest, {});
        return;
    }
    loadValues();
}

void TensorInspector::loadValues() {
    if (!m_selection.info) return;
    m_load->hide();
    m_status->clear();
    m_status->hide();
    m_loading = true;
    for (InspectorPage* p : std::as_const(m_pages)) p->setValuesState(ValuesState::Reading, {});
    const quint64 generation = m_generation;
    auto job = m_jobs->start(tr("Reading %1").arg(QString::fromStdString(m_selection.info->key)));
    m_readJob = job;
    whenDone(this, QtConcurrent::run(jobPool(), readTensor, m_selection.snapshot->checkpoint, m_selection.info, job),
             [this, job, generation](const TensorResult& r) {
                 m_jobs->finish(job);
                 // A newer selection superseded this read; its own read is running.
                 if (generation != m_generation) return;
                 m_readJob.reset();
                 m_loading = false;
                 if (r.cancelled || job->isCancelled()) {
                     // Esc or Cancel: nothing shown, and the offer to read stays.
                     m_status->setText(tr("Cancelled: the values were not read."));
                     m_status->show();
                     m_load->show();
                     for (InspectorPage* p : std::as_const(m_pages)) p->setValuesState(ValuesState::Cancelled, {});
                     emit valuesReady(false);
                     return;
                 }
                 if (!r.tensor) {
                     m_status->setText(r.error);
                     m_status->show();
                     for (InspectorPage* p : std::as_const(m_pages)) {
                         p->setValues(nullptr);
                         p->setValuesState(ValuesState::Failed, r.error);
                     }
                     emit valuesReady(false);
                     return;
                 }
                 for (InspectorPage* p : std::as_const(m_pages)) p->setValues(r.tensor);
                 emit valuesReady(true);
             });
}

}  // namespace ckpt::ui
