#pragma once
// Icons for tree entry kinds, drawn in code as coloured badges with a letter
// so they stay crisp at any device pixel ratio and need no image plugin. The
// fills come from views/status_colors.h, dark enough for the white letter.

#include <QIcon>

#include "ckpt/catalog.h"
#include "ckpt/checkpoint_diff.h"
#include "ckpt/display_tree.h"
#include "style/status_colors.h"

namespace ckpt::ui {

QIcon kindIcon(DisplayKind kind);
// A round badge: 'letter' in white on 'tone' (cached).
QIcon letterBadge(StatusTone tone, const QString& letter);

enum class Health { Unknown, Verifying, Healthy, Damaged };
QIcon healthIcon(Health health);
// The catalog's last word on a checkpoint, shown until the sidebar verifies
// it again: the same letters for healthy, damaged and unverified, "–" for
// missing files and "×" for an unreadable index.
QIcon catalogHealthIcon(CatalogHealth health);

// A comparison row's status: its letter on a coloured badge (A green, D red,
// M amber, T purple, R teal, '=' grey for unchanged), so the letter carries
// the meaning and the colour only helps the eye.
QIcon diffStatusIcon(DiffStatus status);
StatusTone diffStatusTone(DiffStatus status);  // the badge's tone

}  // namespace ckpt::ui
