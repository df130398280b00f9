#pragma once
// The zoom controls and status line of one or more heatmaps: zoom out, zoom
// in, fit to window and actual size as buttons and as the usual shortcuts
// (Ctrl+-, Ctrl++, Ctrl+0, Ctrl+Alt+0) while the focus is in the page that
// holds them, the zoom shown, and on a line of its own the value under the
// mouse or the keyboard's cell. Several views (the compare view's A, B and |A−B|) zoom in step, so
// the inspector and the compare view follow the same rules in one place.

#include <QList>
#include <QString>
#include <QWidget>

class QAction;
class QLabel;

namespace ckpt::ui {

class HeatmapView;

class HeatmapZoomBar : public QWidget {
    Q_OBJECT
public:
    explicit HeatmapZoomBar(QWidget* parent = nullptr);
    // Drives 'view'; 'name' prefixes its values on the status line (may be empty).
    void addView(HeatmapView* view, const QString& name = {});
    // The shortcuts act while the focus is anywhere inside 'scope'.
    void attachShortcuts(QWidget* scope);

    QAction* zoomInAction() const { return m_zoomIn; }
    QAction* zoomOutAction() const { return m_zoomOut; }
    QAction* fitAction() const { return m_fit; }
    QAction* actualSizeAction() const { return m_actual; }
    // "fitted" or the scale in percent of actual size.
    QString zoomText() const;
    // The status line: the value under the mouse or the keyboard's cell.
    QString statusText() const;

private:
    HeatmapView* leadView() const;
    // Every view takes the zoom of 'from'.
    void follow(HeatmapView* from);
    void updateZoomLabel();

    struct Driven {
        HeatmapView* view;
        QString name;
    };
    QList<Driven> m_views;
    QAction* m_zoomOut;
    QAction* m_zoomIn;
    QAction* m_fit;
    QAction* m_actual;
    QLabel* m_zoomLabel;
    QLabel* m_status;
    bool m_following = false;
};

}  // namespace ckpt::ui
