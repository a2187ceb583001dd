// The CPU emulator's <tilelab/mma_ptx.cuh>: the kit's PTX wrappers (grader/include/tilelab/mma_ptx.cuh
// says what each does), emulated by tilelab_emu_ptx.h. Found before the GPU's header because the
// emulator's include folder is the only kit folder on its include path.
#pragma once
#include "tilelab_emu_ptx.h"
