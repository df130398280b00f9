#include "views/duration_sparkline.h"

#include <QApplication>
#include <QPainter>

#include <algorithm>

#include "models/schedules_model.h"

namespace ckpt::ui {
namespace {

// Room for the latest duration as text beside the bars in a table cell.
constexpr int kCellTextWidth = 56;
constexpr int kCellBarsWidth = 90;

}  // namespace

void paintDurationSparkline(QPainter* painter, const QRectF& rect, const QList<double>& seconds, const QPalette& palette) {
    if (seconds.isEmpty() || rect.width() < 2 || rect.height() < 2) return;
    const double longest = *std::max_element(seconds.begin(), seconds.end());
    const double slot = rect.width() / static_cast<double>(seconds.size());
    const double gap = slot > 4 ? 1.0 : 0.0;
    painter->save();
    painter->setRenderHint(QPainter::Antialiasing, false);
    painter->setPen(Qt::NoPen);
    painter->setBrush(palette.color(QPalette::Highlight));
    for (qsizetype i = 0; i < seconds.size(); ++i) {
        // A zero-length run still shows as a sliver, so every run is counted.
        const double h = longest > 0 ? std::max(1.0, rect.height() * seconds[i] / longest) : 1.0;
        painter->drawRect(QRectF(rect.left() + static_cast<double>(i) * slot, rect.bottom() - h, std::max(1.0, slot - gap), h));
    }
    painter->restore();
}

DurationSparkline::DurationSparkline(QWidget* parent) : QWidget(parent) {
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
    setAccessibleName(tr("Recent run durations"));
}

void DurationSparkline::setDurations(const QList<double>& seconds) {
    m_seconds = seconds;
    if (seconds.isEmpty()) {
        setToolTip(tr("No finished runs yet"));
    } else {
        const double longest = *std::max_element(seconds.begin(), seconds.end());
        setToolTip(tr("%n runs, oldest left; longest %1, latest %2", nullptr, static_cast<int>(seconds.size()))
                       .arg(durationText(longest), durationText(seconds.last())));
    }
    update();
}

void DurationSparkline::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    paintDurationSparkline(&painter, QRectF(rect()).adjusted(1, 2, -1, -1), m_seconds, palette());
}

DurationSparklineDelegate::DurationSparklineDelegate(int durationsRole, QObject* parent)
    : QStyledItemDelegate(parent), m_role(durationsRole) {}

void DurationSparklineDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const {
    // The cell as the style draws it (background, selection, focus) but
    // without text; then the latest duration on the left and the bars.
    QStyleOptionViewItem cell = option;
    initStyleOption(&cell, index);
    const QString latest = cell.text;
    cell.text.clear();
    const QWidget* widget = option.widget;
    QStyle* style = widget ? widget->style() : QApplication::style();
    style->drawControl(QStyle::CE_ItemViewItem, &cell, painter, widget);
    const bool selected = option.state & QStyle::State_Selected;
    const QRect textRect =
        option.rect.adjusted(4, 0, 0, 0)
            .intersected(QRect(option.rect.left() + 4, option.rect.top(), kCellTextWidth - 4, option.rect.height()));
    painter->save();
    painter->setPen(option.palette.color(selected ? QPalette::HighlightedText : QPalette::Text));
    painter->drawText(textRect, Qt::AlignLeft | Qt::AlignVCenter,
                      option.fontMetrics.elidedText(latest, Qt::ElideRight, textRect.width()));
    painter->restore();
    const QList<double> seconds = index.data(m_role).value<QList<double>>();
    const QRectF bars = QRectF(option.rect).adjusted(kCellTextWidth + 4, 3, -4, -3);
    QPalette palette = option.palette;
    if (selected) palette.setColor(QPalette::Highlight, option.palette.color(QPalette::HighlightedText));
    paintDurationSparkline(painter, bars, seconds, palette);
}

QSize DurationSparklineDelegate::sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const {
    QSize size = QStyledItemDelegate::sizeHint(option, index);
    return {std::max(size.width(), kCellTextWidth + kCellBarsWidth), size.height()};
}

}  // namespace ckpt::ui
