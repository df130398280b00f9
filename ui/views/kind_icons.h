#pragma once
// Moved to ui/style/ (presentation helpers shared by models and views);
// this forwarder remains until the restore and surgery views include the new path.
#include "style/kind_icons.h"
