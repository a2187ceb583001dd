// The CPU emulator's <mma.h>: not emulated. Including it stops the build with one sentence that names
// the construct, instead of an error from inside CUDA's or the emulator's headers.
#pragma once
#error "<mma.h> is not supported by the tilelab CPU emulator (an emulator limit, not an error in your code): grade this file on a GPU, or do without it"
