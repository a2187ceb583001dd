// The CPU emulator's <cooperative_groups.h>: the block and its tiles of one warp or less, emulated
// with CUDA's semantics by tilelab_emu_cg.h; the rest of CUDA's header is declared there and
// refused at its use, naming it (docs/emulator.md, "Cooperative groups").
#pragma once
#include "tilelab_emu_cg.h"
