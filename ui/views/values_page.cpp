#include "views/values_page.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QFileDialog>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QMessageBox>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStyle>
#include <QTableView>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <limits>

#include "jobs/job_pool.h"
#include "jobs/npy_export.h"
#include "jobs/when_done.h"
#include "models/tensor_slice_model.h"

namespace ckpt::ui {

ValuesPage::ValuesPage(QWidget* parent)
    : InspectorPage(parent), m_model(new TensorSliceModel(this)), m_table(new QTableView(this)), m_message(new QLabel(this)),
      m_selectors(new QWidget(this)), m_rowAxis(new QComboBox(m_selectors)), m_columnAxis(new QComboBox(m_selectors)),
      m_pinnedLayout(new QHBoxLayout), m_window(new QWidget(this)), m_rowStart(new QSpinBox(m_window)),
      m_columnStart(new QSpinBox(m_window)), m_windowText(new QLabel(m_window)), m_copy(new QPushButton(tr("&Copy"), this)),
      m_export(new QPushButton(tr("Export .&npy\u2026"), this)) {
    auto* layout = new QVBoxLayout(this);
    auto* sel = new QHBoxLayout(m_selectors);
    sel->setContentsMargins(0, 0, 0, 0);
    // "axis 0 (4)" in the boxes, or "Column axis:" beside them, did not
    // fit a narrow inspector: the boxes hold the axis and its length.
    sel->addWidget(new QLabel(tr("Rows:"), m_selectors));
    sel->addWidget(m_rowAxis);
    sel->addWidget(new QLabel(tr("Columns:"), m_selectors));
    sel->addWidget(m_columnAxis);
    sel->addLayout(m_pinnedLayout);
    sel->addStretch();
    for (QComboBox* box : {m_rowAxis, m_columnAxis}) box->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_rowAxis->setAccessibleName(tr("Axis shown as rows"));
    m_columnAxis->setAccessibleName(tr("Axis shown as columns"));
    layout->addWidget(m_selectors);
    auto* window = new QHBoxLayout(m_window);
    window->setContentsMargins(0, 0, 0, 0);
    m_rowStart->setPrefix(tr("rows from "));
    m_rowStart->setAccessibleName(tr("First row shown"));
    m_rowStart->setToolTip(tr("The grid shows %L1 rows at a time; this is the first of them").arg(TensorSliceModel::kMaxRows));
    m_columnStart->setPrefix(tr("columns from "));
    m_columnStart->setAccessibleName(tr("First column shown"));
    m_columnStart->setToolTip(
        tr("The grid shows %L1 columns at a time; this is the first of them").arg(TensorSliceModel::kMaxColumns));
    for (QSpinBox* box : {m_rowStart, m_columnStart}) {
        box->setKeyboardTracking(false);  // moves once the number is typed, not per digit
        window->addWidget(box);
        connect(box, &QSpinBox::valueChanged, this, [this] { m_model->setWindow(m_rowStart->value(), m_columnStart->value()); });
    }
    m_rowStart->setSingleStep(TensorSliceModel::kMaxRows);
    m_columnStart->setSingleStep(TensorSliceModel::kMaxColumns);
    m_windowText->setTextInteractionFlags(Qt::TextSelectableByMouse);
    window->addWidget(m_windowText, 1);
    layout->addWidget(m_window);
    connect(m_model, &TensorSliceModel::sliceChanged, this, &ValuesPage::updateWindowBoxes);
    m_message->setWordWrap(true);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_message);
    m_table->setModel(m_model);
    m_table->setAccessibleName(tr("Tensor values"));
    m_table->setSelectionMode(QAbstractItemView::ContiguousSelection);
    m_table->horizontalHeader()->setDefaultSectionSize(90);
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    auto* copyAction = new QAction(this);
    copyAction->setShortcut(QKeySequence::Copy);
    copyAction->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    connect(copyAction, &QAction::triggered, this, &ValuesPage::copySelection);
    m_table->addAction(copyAction);
    layout->addWidget(m_table, 1);
    auto* buttons = new QHBoxLayout;
    buttons->addStretch();
    m_copy->setToolTip(tr("Copy the selected cells (or the visible slice) as tab-separated text"));
    m_export->setToolTip(tr("Save the whole tensor as a NumPy .npy file"));
    buttons->addWidget(m_copy);
    buttons->addWidget(m_export);
    layout->addLayout(buttons);
    connect(m_copy, &QPushButton::clicked, this, &ValuesPage::copySelection);
    connect(m_export, &QPushButton::clicked, this, &ValuesPage::exportInteractive);
    connect(m_rowAxis, &QComboBox::activated, this, &ValuesPage::applyAxes);
    connect(m_columnAxis, &QComboBox::activated, this, &ValuesPage::applyAxes);
    setValues(nullptr);
}

QString ValuesPage::message() const { return m_message->isVisible() ? m_message->text() : QString(); }

void ValuesPage::setSelection(const TensorSelection& selection) {
    m_selection = selection;
    m_model->setTensor(nullptr);
    rebuildSelectors();
    // What happens to the values next (read, wait for Load values, an
    // error) comes with setValuesState.
    m_message->setText(selection.info ? QString() : tr("Select a variable or tensor to see its values."));
    m_message->setVisible(!selection.info);
    m_copy->setEnabled(false);
    m_export->setEnabled(false);
}

void ValuesPage::setValuesState(ValuesState state, const QString& detail) {
    if (!m_selection.info) return;
    switch (state) {
    case ValuesState::Reading: m_message->setText(tr("Reading values\u2026")); break;
    case ValuesState::OnRequest: m_message->setText(tr("The values are read only on request (Load values).")); break;
    case ValuesState::Failed: m_message->setText(tr("The values could not be read: %1").arg(detail)); break;
    case ValuesState::Cancelled: m_message->setText(tr("Cancelled: the values were not read (Load values reads them).")); break;
    case ValuesState::Undecodable: m_message->setText(detail); break;
    }
    m_message->setVisible(true);
}

void ValuesPage::setValues(std::shared_ptr<const Tensor> values) {
    if (!values) {
        m_copy->setEnabled(false);
        m_export->setEnabled(false);
        if (!m_selection.info) m_message->setText(tr("Select a variable or tensor to see its values."));
        return;
    }
    m_model->setTensor(std::move(values));
    rebuildSelectors();
    fitColumns();
    const bool empty = m_model->tensor()->numElements() == 0;
    m_message->setText(empty ? tr("The tensor has no elements.") : QString());
    m_message->setVisible(empty);
    m_copy->setEnabled(!empty);
    m_export->setEnabled(true);
}

void ValuesPage::rebuildSelectors() {
    qDeleteAll(m_pinned);
    m_pinned.clear();
    m_rowAxis->clear();
    m_columnAxis->clear();
    const int rank = m_model->rank();
    m_selectors->setVisible(rank >= 2);
    if (rank < 2) return;
    const auto& dims = m_model->tensor()->shape.dims;
    for (int a = 0; a < rank; ++a) {
        const QString label = tr("%1 (%2)").arg(a).arg(dims[static_cast<size_t>(a)]);
        m_rowAxis->addItem(label, a);
        m_columnAxis->addItem(label, a);
    }
    m_rowAxis->setCurrentIndex(m_model->rowAxis());
    m_columnAxis->setCurrentIndex(m_model->columnAxis());
    for (int a = 0; a < rank; ++a) {
        auto* box = new QSpinBox(m_selectors);
        box->setPrefix(tr("axis %1 = ").arg(a));
        box->setRange(0, static_cast<int>(std::min<int64_t>(dims[static_cast<size_t>(a)] - 1, std::numeric_limits<int>::max())));
        box->setValue(static_cast<int>(m_model->pinnedIndex(a)));
        box->setAccessibleName(tr("Index along axis %1").arg(a));
        box->setToolTip(tr("Which slice of axis %1 to show").arg(a));
        box->setVisible(a != m_model->rowAxis() && a != m_model->columnAxis());
        connect(box, &QSpinBox::valueChanged, this, [this, a](int v) { m_model->setPinnedIndex(a, v); });
        m_pinnedLayout->addWidget(box);
        m_pinned.append(box);
    }
}

void ValuesPage::fitColumns() {
    // As wide as the longest number of the dtype in the grid's fixed font,
    // so "-0.0072193" never becomes "-0.0072…"; strings keep a fixed width
    // (their full text is in the tooltip).
    const QString widest = m_model->widestElementText();
    const QFontMetrics metrics(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    const int margins = 2 * (m_table->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, m_table) + 1) + 8;
    m_table->horizontalHeader()->setDefaultSectionSize(widest.isEmpty() ? 160 : metrics.horizontalAdvance(widest) + margins);
}

void ValuesPage::updateWindowBoxes() {
    const int64_t rows = m_model->totalRows(), columns = m_model->totalColumns();
    const bool rowWindow = rows > TensorSliceModel::kMaxRows, columnWindow = columns > TensorSliceModel::kMaxColumns;
    m_window->setVisible(rowWindow || columnWindow);
    // Spin boxes count in int: a longer axis is reachable up to INT_MAX.
    const auto last = [](int64_t total, int window) {
        return static_cast<int>(std::clamp<int64_t>(total - window, 0, std::numeric_limits<int>::max()));
    };
    const QSignalBlocker blockRows(m_rowStart), blockColumns(m_columnStart);
    m_rowStart->setVisible(rowWindow);
    m_rowStart->setRange(0, last(rows, TensorSliceModel::kMaxRows));
    m_rowStart->setValue(static_cast<int>(std::min<int64_t>(m_model->rowOffset(), std::numeric_limits<int>::max())));
    m_columnStart->setVisible(columnWindow);
    m_columnStart->setRange(0, last(columns, TensorSliceModel::kMaxColumns));
    m_columnStart->setValue(static_cast<int>(std::min<int64_t>(m_model->columnOffset(), std::numeric_limits<int>::max())));
    QStringList shown;
    const QLocale locale;
    if (rowWindow)
        shown << tr("rows %1\u2013%2 of %3")
                     .arg(locale.toString(static_cast<qlonglong>(m_model->rowOffset())),
                          locale.toString(static_cast<qlonglong>(m_model->rowOffset() + m_model->rowCount() - 1)),
                          locale.toString(static_cast<qlonglong>(rows)));
    if (columnWindow)
        shown << tr("columns %1\u2013%2 of %3")
                     .arg(locale.toString(static_cast<qlonglong>(m_model->columnOffset())),
                          locale.toString(static_cast<qlonglong>(m_model->columnOffset() + m_model->columnCount() - 1)),
                          locale.toString(static_cast<qlonglong>(columns)));
    m_windowText->setText(shown.join(QStringLiteral(", ")));
}

void ValuesPage::applyAxes() {
    int row = m_rowAxis->currentData().toInt();
    int column = m_columnAxis->currentData().toInt();
    if (row == column) {
        // Swap rather than refuse: picking the column axis as rows means "transpose".
        const bool rowChanged = sender() == m_rowAxis;
        if (rowChanged) column = m_model->rowAxis();
        else row = m_model->columnAxis();
    }
    m_model->setAxes(row, column);
    m_rowAxis->setCurrentIndex(row);
    m_columnAxis->setCurrentIndex(column);
    for (int a = 0; a < m_pinned.size(); ++a) m_pinned[a]->setVisible(a != row && a != column);
}

void ValuesPage::copySelection() {
    if (!m_model->tensor()) return;
    const QModelIndexList sel = m_table->selectionModel() ? m_table->selectionModel()->selectedIndexes() : QModelIndexList();
    int top = 0, left = 0, bottom = std::min(m_model->rowCount(), 1000) - 1, right = std::min(m_model->columnCount(), 1000) - 1;
    if (!sel.isEmpty()) {
        top = bottom = sel.first().row();
        left = right = sel.first().column();
        for (const QModelIndex& i : sel) {
            top = std::min(top, i.row());
            bottom = std::max(bottom, i.row());
            left = std::min(left, i.column());
            right = std::max(right, i.column());
        }
    }
    QApplication::clipboard()->setText(m_model->copyText(top, left, bottom, right));
}

QString ValuesPage::exportNpy(const QString& path) {
    if (!m_model->tensor()) return tr("No values loaded.");
    return writeNpy(*m_model->tensor(), path);
}

void ValuesPage::exportInteractive() {
    if (!m_selection.info) return;
    QString name = QString::fromStdString(m_selection.info->key);
    name.replace(QLatin1Char('/'), QLatin1Char('_'));
    const QString path =
        QFileDialog::getSaveFileName(this, tr("Export tensor"), name + QStringLiteral(".npy"), tr("NumPy arrays (*.npy)"));
    if (path.isEmpty() || !m_model->tensor()) return;
    // Writing can take seconds for a large tensor: off the GUI thread.
    m_export->setEnabled(false);
    whenDone(this, QtConcurrent::run(jobPool(), [tensor = m_model->tensor(), path] { return writeNpy(*tensor, path); }),
             [this](const QString& error) {
                 m_export->setEnabled(m_model->tensor() != nullptr);
                 if (!error.isEmpty()) QMessageBox::warning(this, tr("Export failed"), error);
             });
}

}  // namespace ckpt::ui
