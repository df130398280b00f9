#pragma once
// Measures event-loop responsiveness in UI tests: the longest gap between
// 5 ms timer ticks is how long the loop was busy with something else.
//   StallMeter meter;
//   meter.start();
//   ... drive the UI, QTRY_VERIFY(...) ...
//   QVERIFY(meter.longest() < 100);
// longestBusy() is the most CPU time the GUI thread itself spent between
// two ticks (CLOCK_THREAD_CPUTIME_ID): the work done on it, whatever the
// machine's load. On a machine with more runnable threads than cores a gap
// can be long while the thread waits for a core; its busy time stays what
// the code costs.

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>

#include <algorithm>
#include <ctime>

namespace ckpt::testing {

class StallMeter : public QObject {
public:
    StallMeter() {
        m_timer.setInterval(5);
        connect(&m_timer, &QTimer::timeout, this, [this] {
            m_longest = std::max(m_longest, m_clock.restart());
            const qint64 cpu = threadCpuMs();
            m_longestBusy = std::max(m_longestBusy, cpu - m_lastCpu);
            m_lastCpu = cpu;
        });
    }
    void start() {
        m_longest = m_longestBusy = 0;
        m_lastCpu = threadCpuMs();
        m_clock.start();
        m_timer.start();
    }
    qint64 longest() const { return m_longest; }
    qint64 longestBusy() const { return m_longestBusy; }

private:
    static qint64 threadCpuMs() {
        timespec t{};
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
        return static_cast<qint64>(t.tv_sec) * 1000 + t.tv_nsec / 1000000;
    }

    QTimer m_timer;
    QElapsedTimer m_clock;
    qint64 m_longest = 0;
    qint64 m_longestBusy = 0;
    qint64 m_lastCpu = 0;
};

}  // namespace ckpt::testing
