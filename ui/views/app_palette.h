#pragma once
// The application's colour scheme: the desktop's (the default: Qt's
// platform theme hands it over, dark or light), or Fusion with a light or
// dark palette chosen on the command line (--palette light|dark), which
// also gives screenshots that do not depend on the machine. Views draw with
// palette roles, so a dark desktop palette is followed without this.
// Call on the GUI thread before the first window is shown.

#include <QString>

class QPalette;

namespace ckpt::ui {

// "system" (or empty), "light" or "dark"; false for anything else.
bool applyPaletteChoice(const QString& choice);

QPalette darkPalette();

}  // namespace ckpt::ui
