// The CPU emulator's <cooperative_groups/memcpy_async.h>: declared by tilelab_emu_cg.h, where what this header
// provides on a GPU is refused at its use, naming it (docs/emulator.md, "Cooperative groups").
#pragma once
#include "../tilelab_emu_cg.h"
