// The CPU emulator's <cuda_runtime.h>: a student file's `#include <cuda_runtime.h>` lands here when it
// is compiled with g++ for the emulator (grader/emu/README in docs/emulator.md). Everything lives in
// tilelab_emu.h, which the build also force-includes (-include) so that files without the include work.
#pragma once
#include "tilelab_emu.h"
