#pragma once
// Measures event-loop responsiveness in UI tests: the longest gap between
// 5 ms timer ticks is how long the loop was busy with something else.
//   StallMeter meter;
//   meter.start();
//   ... drive the UI, QTRY_VERIFY(...) ...
//   QVERIFY(meter.longest() < 100);

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>

#include <algorithm>

namespace ckpt::testing {

class StallMeter : public QObject {
public:
    StallMeter() {
        m_timer.setInterval(5);
        connect(&m_timer, &QTimer::timeout, this, [this] { m_longest = std::max(m_longest, m_clock.restart()); });
    }
    void start() {
        m_longest = 0;
        m_clock.start();
        m_timer.start();
    }
    qint64 longest() const { return m_longest; }

private:
    QTimer m_timer;
    QElapsedTimer m_clock;
    qint64 m_longest = 0;
};

}  // namespace ckpt::testing
