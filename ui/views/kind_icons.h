#pragma once
// Icons for tree entry kinds, drawn in code as coloured badges with a letter
// so they stay crisp at any device pixel ratio and need no image plugin.

#include <QIcon>

#include "models/checkpoint_snapshot.h"

namespace ckpt::ui {

QIcon kindIcon(EntryKind kind);

enum class Health { Unknown, Verifying, Healthy, Damaged };
QIcon healthIcon(Health health);

}  // namespace ckpt::ui
