#include "views/heatmap_controls.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>
#include <limits>
#include <utility>

namespace ckpt::ui {

HeatmapControls::HeatmapControls(const HeatmapControlsWording& wording, QWidget* parent)
    : QWidget(parent), m_wording(wording), m_axesRow(new QWidget(this)), m_rowAxis(new QComboBox(m_axesRow)),
      m_columnAxis(new QComboBox(m_axesRow)), m_indexLayout(new QHBoxLayout), m_reduce(new QComboBox(this)),
      m_colormap(new QComboBox(this)) {
    // No margins: the two rows sit in the user's layout as if laid out there.
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* axes = new QHBoxLayout(m_axesRow);
    axes->setContentsMargins(0, 0, 0, 0);
    // Buddies: Alt+W and Alt+M reach the boxes, and readers name them.
    auto* rowsLabel = new QLabel(tr("Ro&ws:"), m_axesRow);
    rowsLabel->setBuddy(m_rowAxis);
    axes->addWidget(rowsLabel);
    axes->addWidget(m_rowAxis);
    auto* columnsLabel = new QLabel(tr("Colu&mns:"), m_axesRow);
    columnsLabel->setBuddy(m_columnAxis);
    axes->addWidget(columnsLabel);
    axes->addWidget(m_columnAxis);
    axes->addLayout(m_indexLayout);
    axes->addStretch();
    for (QComboBox* box : {m_rowAxis, m_columnAxis}) box->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_rowAxis->setAccessibleName(wording.rowAxisName);
    m_columnAxis->setAccessibleName(wording.columnAxisName);
    layout->addWidget(m_axesRow);

    auto* look = new QHBoxLayout;
    auto* reduceLabel = new QLabel(tr("&Reduce:"), this);
    reduceLabel->setBuddy(m_reduce);
    look->addWidget(reduceLabel);
    m_reduce->addItem(tr("mean"), static_cast<int>(HeatmapReduce::Mean));
    m_reduce->addItem(tr("max |x|"), static_cast<int>(HeatmapReduce::MaxAbs));
    m_reduce->setAccessibleName(wording.reduceName);
    m_reduce->setToolTip(wording.reduceToolTip);
    look->addWidget(m_reduce);
    auto* mapLabel = new QLabel(wording.colormapLabel, this);
    mapLabel->setBuddy(m_colormap);
    look->addWidget(mapLabel);
    for (const std::string& name : heatmapColormapNames()) m_colormap->addItem(QString::fromStdString(name));
    m_colormap->setAccessibleName(wording.colormapName);
    m_colormap->setToolTip(wording.colormapToolTip);
    look->addWidget(m_colormap);
    look->addStretch();
    layout->addLayout(look);

    // 'activated', not 'currentIndexChanged': only the user's picks count,
    // not the refilling of the axis boxes for a new shape.
    connect(m_rowAxis, &QComboBox::activated, this, [this] { applyAxes(true); });
    connect(m_columnAxis, &QComboBox::activated, this, [this] { applyAxes(false); });
    connect(m_reduce, &QComboBox::activated, this, &HeatmapControls::changed);
    connect(m_colormap, &QComboBox::activated, this, &HeatmapControls::changed);
    resetFor(nullptr);
}

void HeatmapControls::resetFor(const TensorShape* shape) {
    qDeleteAll(m_indices);
    m_indices.clear();
    m_rowAxis->clear();
    m_columnAxis->clear();
    m_shape = shape ? std::optional<TensorShape>(*shape) : std::nullopt;
    const int rank = shape ? shape->rank() : 0;
    m_axesRow->setVisible(rank >= 2);
    if (rank < 2) return;
    const auto& dims = shape->dims;
    for (int a = 0; a < rank; ++a) {
        // The axis and its length, as the value grid's boxes say it: "axis 1
        // (32)" was cut to "axis 1 (3" in the inspector of a 1024 px window.
        const QString label = tr("%1 (%2)").arg(a).arg(dims[static_cast<size_t>(a)]);
        m_rowAxis->addItem(label, a);
        m_columnAxis->addItem(label, a);
    }
    // The engine's default: the last two axes.
    m_rowAxis->setCurrentIndex(rank - 2);
    m_columnAxis->setCurrentIndex(rank - 1);
    m_shownAxes = {rank - 2, rank - 1};
    for (int a = 0; a < rank; ++a) {
        auto* box = new QSpinBox(m_axesRow);
        box->setPrefix(tr("axis %1: ").arg(a));
        // -1 is "all": the axis is reduced rather than fixed.
        box->setRange(-1, static_cast<int>(std::min<int64_t>(dims[static_cast<size_t>(a)] - 1, std::numeric_limits<int>::max())));
        box->setSpecialValueText(tr("axis %1: all").arg(a));
        box->setValue(-1);
        // Typing "12" asks for one slice, not for slice 1 and then 12.
        box->setKeyboardTracking(false);
        // Checked first: arg() on a string without "%1" warns.
        if (!m_wording.indexName.isEmpty()) box->setAccessibleName(m_wording.indexName.arg(a));
        if (!m_wording.indexToolTip.isEmpty()) box->setToolTip(m_wording.indexToolTip.arg(a));
        box->setVisible(a < rank - 2);
        connect(box, &QSpinBox::valueChanged, this, &HeatmapControls::changed);
        m_indexLayout->addWidget(box);
        m_indices.append(box);
    }
}

void HeatmapControls::setShape(const TensorShape* shape) {
    if (shape && m_shape && *shape == *m_shape) return;
    // Another rank: the axes chosen mean nothing there.
    if (!shape || !m_shape || shape->rank() != m_shape->rank() || !hasAxesToPick()) return resetFor(shape);
    // Same rank, other sizes: the axes stay; an index past its axis's new
    // end falls back to reducing that axis.
    const std::pair<int, int> shown = m_shownAxes;
    QList<int> indices;
    for (const QSpinBox* box : std::as_const(m_indices)) indices << box->value();
    resetFor(shape);
    m_shownAxes = shown;
    m_rowAxis->setCurrentIndex(shown.first);
    m_columnAxis->setCurrentIndex(shown.second);
    for (int a = 0; a < m_indices.size(); ++a) {
        QSpinBox* box = m_indices[a];
        const QSignalBlocker quiet(box);
        box->setValue(indices[a] <= box->maximum() ? indices[a] : -1);
        box->setVisible(a != shown.first && a != shown.second);
    }
}

void HeatmapControls::setAxesShown(bool shown) { m_axesRow->setVisible(shown && hasAxesToPick()); }

void HeatmapControls::applyAxes(bool rowPicked) {
    int row = m_rowAxis->currentData().toInt();
    int column = m_columnAxis->currentData().toInt();
    if (row == column) {
        // As in the value grid: picking the other shown axis swaps them.
        if (rowPicked) column = m_shownAxes.first;
        else row = m_shownAxes.second;
    }
    m_shownAxes = {row, column};
    m_rowAxis->setCurrentIndex(row);
    m_columnAxis->setCurrentIndex(column);
    for (int a = 0; a < m_indices.size(); ++a) m_indices[a]->setVisible(a != row && a != column);
    emit changed();
}

HeatmapRequest HeatmapControls::request() const {
    HeatmapRequest request;
    if (hasAxesToPick()) {
        const int row = m_rowAxis->currentData().toInt(), column = m_columnAxis->currentData().toInt();
        request.axes = std::make_pair(row, column);
        for (int a = 0; a < m_indices.size(); ++a)
            if (a != row && a != column && m_indices[a]->value() >= 0) request.fixedIndices[a] = m_indices[a]->value();
    }
    request.reduce = static_cast<HeatmapReduce>(m_reduce->currentData().toInt());
    request.colormap = m_colormap->currentText().toStdString();
    return request;
}

}  // namespace ckpt::ui
