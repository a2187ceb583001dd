// The CPU emulator's <mma.h>: CUDA's warp matrix functions (nvcuda::wmma) for tensor cores, emulated
// with the GPU's semantics by tilelab_emu_wmma.h (docs/emulator.md, "Tensor cores").
#pragma once
#include "tilelab_emu_wmma.h"
