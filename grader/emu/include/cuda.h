// See cuda_runtime.h in this folder: the emulator has a single header.
#pragma once
#include "tilelab_emu.h"
