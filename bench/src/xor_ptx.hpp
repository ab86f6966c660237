// The PTX of the tiny kernel the driver-floor measurements launch without vyre (P3's floor and C1's
// raw-driver program, bench/src/driver_kernel.cpp; bench/floor/driver_floor.cpp by hand):
// out[i] = a[i] ^ b[i] for i < n, any sm_70 or newer. Parameters: a, b, out (u64 device pointers), n (u32).
#pragma once

namespace vyre::bench {

inline constexpr const char* kXorPtxEntry = "xor_floor";
inline constexpr const char* kXorPtx = R"(
.version 7.0
.target sm_70
.address_size 64
.visible .entry xor_floor(.param .u64 a, .param .u64 b, .param .u64 o, .param .u32 n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd0, [a];
  ld.param.u64 %rd1, [b];
  ld.param.u64 %rd2, [o];
  ld.param.u32 %r0, [n];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mad.lo.u32 %r4, %r2, %r3, %r1;
  setp.ge.u32 %p0, %r4, %r0;
  @%p0 bra DONE;
  mul.wide.u32 %rd3, %r4, 4;
  add.s64 %rd4, %rd0, %rd3;
  add.s64 %rd5, %rd1, %rd3;
  add.s64 %rd6, %rd2, %rd3;
  ld.global.b32 %r5, [%rd4];
  ld.global.b32 %r6, [%rd5];
  xor.b32 %r7, %r5, %r6;
  st.global.b32 [%rd6], %r7;
DONE:
  ret;
}
)";

}  // namespace vyre::bench
