// Attacks on the emulator's instruments: the sanitizers' interface (called in every build: a file can
// no longer tell the ASan build by __SANITIZE_ADDRESS__, which the emulator undefines), and
// instrumentation callbacks of another build than the object's.
#include <cuda_runtime.h>
#include <cstddef>

extern "C" void __asan_load4(void*);
extern "C" void __asan_load4_noabort(void*);
extern "C" void __asan_report_load4(void*);
extern "C" void __tsan_read4(void*);   // the race build's own callback: refused in the other two
extern "C" void __asan_unpoison_memory_region(void const volatile*, size_t);
extern "C" void __asan_poison_memory_region(void const volatile*, size_t);

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    (void)M, (void)N, (void)Width;
    __asan_load4(P);
    __asan_load4_noabort(P);
    __asan_report_load4(P);
    __tsan_read4(P);
    __asan_unpoison_memory_region(P - 16, 64);   // hide an overrun from AddressSanitizer
    __asan_poison_memory_region(P, 4);
}
