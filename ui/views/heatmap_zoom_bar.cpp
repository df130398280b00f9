#include "views/heatmap_zoom_bar.h"

#include <QAction>
#include <QHBoxLayout>
#include <QKeySequence>
#include <QLabel>
#include <QToolButton>
#include <QVBoxLayout>

#include <cmath>
#include <utility>

#include "views/heatmap_view.h"

namespace ckpt::ui {
namespace {

QAction* makeAction(const QString& text, const QString& toolTip, const QList<QKeySequence>& keys, QObject* parent) {
    auto* action = new QAction(text, parent);
    action->setShortcuts(keys);
    // Only while the focus is in the page holding the heatmaps: other views
    // of the window keep these keys.
    action->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    action->setToolTip(QStringLiteral("%1 (%2)").arg(toolTip, keys.first().toString(QKeySequence::NativeText)));
    return action;
}

}  // namespace

HeatmapZoomBar::HeatmapZoomBar(QWidget* parent)
    : QWidget(parent),
      m_zoomOut(makeAction(tr("\u2212"), tr("Zoom out"), QKeySequence::keyBindings(QKeySequence::ZoomOut), this)),
      m_zoomIn(makeAction(tr("+"), tr("Zoom in"),
                          QKeySequence::keyBindings(QKeySequence::ZoomIn) << QKeySequence(Qt::CTRL | Qt::Key_Equal), this)),
      m_fit(makeAction(tr("Fit"), tr("Fit to window"), {QKeySequence(Qt::CTRL | Qt::Key_0)}, this)),
      m_actual(makeAction(tr("1:1"), tr("Actual size: one value per screen pixel"),
                          {QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_0)}, this)),
      m_zoomLabel(new QLabel(this)), m_status(new QLabel(this)) {
    // Two lines: the status line gets the pane's whole width, so a value
    // reads in full even in a narrow inspector.
    auto* lines = new QVBoxLayout(this);
    lines->setContentsMargins(0, 0, 0, 0);
    auto* row = new QHBoxLayout;
    lines->addLayout(row);
    const QList<std::pair<QAction*, QString>> buttons = {
        {m_zoomOut, tr("Zoom heatmap out")},
        {m_zoomIn, tr("Zoom heatmap in")},
        {m_fit, tr("Fit heatmap to window")},
        {m_actual, tr("Heatmap at actual size")},
    };
    for (const auto& [action, name] : buttons) {
        auto* button = new QToolButton(this);
        button->setDefaultAction(action);
        button->setAccessibleName(name);
        // Tab reaches the buttons too, not only the mouse.
        button->setFocusPolicy(Qt::StrongFocus);
        row->addWidget(button);
    }
    m_zoomLabel->setAccessibleName(tr("Heatmap zoom"));
    row->addWidget(m_zoomLabel);
    row->addStretch();
    m_status->setAccessibleName(tr("Heatmap value under the cursor"));
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // A long value must not widen the inspector.
    m_status->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    // Keeps its height while empty, so the heatmap below does not jump.
    m_status->setMinimumHeight(m_status->fontMetrics().height());
    lines->addWidget(m_status);

    connect(m_zoomIn, &QAction::triggered, this, [this] {
        if (HeatmapView* v = leadView()) v->zoomIn();
    });
    connect(m_zoomOut, &QAction::triggered, this, [this] {
        if (HeatmapView* v = leadView()) v->zoomOut();
    });
    connect(m_actual, &QAction::triggered, this, [this] {
        if (HeatmapView* v = leadView()) v->actualSize();
    });
    connect(m_fit, &QAction::triggered, this, [this] {
        for (const Driven& d : m_views) d.view->fitToWindow();
    });
    updateZoomLabel();
}

void HeatmapZoomBar::addView(HeatmapView* view, const QString& name) {
    m_views.append({view, name});
    connect(view, &HeatmapView::zoomChanged, this, [this, view] { follow(view); });
    connect(view, &HeatmapView::cursorTextChanged, this, [this, name](const QString& text) {
        m_status->setText(text.isEmpty() || name.isEmpty() ? text : QStringLiteral("%1: %2").arg(name, text));
    });
}

void HeatmapZoomBar::attachShortcuts(QWidget* scope) { scope->addActions({m_zoomOut, m_zoomIn, m_fit, m_actual}); }

HeatmapView* HeatmapZoomBar::leadView() const {
    for (const Driven& d : m_views)
        if (d.view->heatmap()) return d.view;
    return nullptr;
}

void HeatmapZoomBar::follow(HeatmapView* from) {
    if (!m_following) {
        m_following = true;
        for (const Driven& d : m_views)
            if (d.view != from) d.view->setZoom(from->zoom());
        m_following = false;
    }
    updateZoomLabel();
}

QString HeatmapZoomBar::zoomText() const {
    const HeatmapView* v = m_views.isEmpty() ? nullptr : m_views.first().view;
    if (!v || !v->zoom()) return tr("fitted");
    return tr("%1%").arg(std::lround(*v->zoom() * v->devicePixelRatioF() * 100.0));
}

QString HeatmapZoomBar::statusText() const { return m_status->text(); }

void HeatmapZoomBar::updateZoomLabel() { m_zoomLabel->setText(zoomText()); }

}  // namespace ckpt::ui
