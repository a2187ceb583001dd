// The CPU emulator's <device_functions.h>: CUDA's header of this name would redefine what the emulator's single
// header (tilelab_emu.h, docs/emulator.md) already provides, so this one includes that instead.
#pragma once
#include "tilelab_emu.h"
