#pragma once
// Statistics of the selected tensor from the engine (count, min, max, mean,
// std, abs-max, zeros, NaN, ±Inf) and where they were computed.

#include <QList>
#include <optional>

#include "ckpt/preview.h"
#include "views/preview_page.h"

class QFormLayout;
class QLabel;

namespace ckpt::ui {

struct StatsResult;

class StatsPage : public PreviewPage {
    Q_OBJECT
public:
    explicit StatsPage(QWidget* parent = nullptr);
    QString pageTitle() const override { return tr("Statistics"); }
    // The statistics shown; empty while computing or after an error.
    const std::optional<TensorStats>& stats() const { return m_stats; }
    QString message() const;
    QString computedOn() const;
    // The statistics shown came from the catalog's results cache.
    bool isFromCache() const;

protected:
    void startPreview() override;
    void clearPreview() override;

private:
    bool showResult(const StatsResult& result);

    std::optional<TensorStats> m_stats;
    bool m_fromCache = false;
    QFormLayout* m_form;
    QList<QLabel*> m_fields;
    QLabel* m_message;
    QLabel* m_device;
};

}  // namespace ckpt::ui
