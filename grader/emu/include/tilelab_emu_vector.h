// tilelab CPU emulator: CUDA's vector types (vector_types.h) and their make_* functions
// (vector_functions.h), with CUDA's sizes and alignments, so that a student's vector loads (float4)
// are aligned as on a GPU and a misaligned one is reported by the ASan+UBSan build. Included by
// tilelab_emu.h; vector_types.h and vector_functions.h in this folder stand in for CUDA's.
#ifndef TILELAB_EMU_VECTOR_H
#define TILELAB_EMU_VECTOR_H

// TLEMU_VEC(T, base, align2, align4): T1, T2 (aligned align2), T3, T4 (aligned align4).
#define TLEMU_VEC(T, B, A2, A4)                                                                   \
  struct T##1 { B x; };                                                                           \
  struct alignas(A2) T##2 { B x, y; };                                                            \
  struct T##3 { B x, y, z; };                                                                     \
  struct alignas(A4) T##4 { B x, y, z, w; };                                                      \
  inline T##1 make_##T##1(B x) { return {x}; }                                                    \
  inline T##2 make_##T##2(B x, B y) { return {x, y}; }                                            \
  inline T##3 make_##T##3(B x, B y, B z) { return {x, y, z}; }                                    \
  inline T##4 make_##T##4(B x, B y, B z, B w) { return {x, y, z, w}; }
TLEMU_VEC(char, signed char, 2, 4)
TLEMU_VEC(uchar, unsigned char, 2, 4)
TLEMU_VEC(short, short, 4, 8)
TLEMU_VEC(ushort, unsigned short, 4, 8)
TLEMU_VEC(int, int, 8, 16)
TLEMU_VEC(uint, unsigned int, 8, 16)
TLEMU_VEC(long, long, 16, 16)
TLEMU_VEC(ulong, unsigned long, 16, 16)
TLEMU_VEC(longlong, long long, 16, 16)
TLEMU_VEC(ulonglong, unsigned long long, 16, 16)
TLEMU_VEC(float, float, 8, 16)
TLEMU_VEC(double, double, 16, 16)
#undef TLEMU_VEC

struct dim3 {
  unsigned int x, y, z;
  constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  constexpr operator uint3() const { return {x, y, z}; }
};

#endif  // TILELAB_EMU_VECTOR_H
