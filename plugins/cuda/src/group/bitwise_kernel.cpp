#include "group/bitwise_kernel.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "vyre/error.hpp"

namespace vyre::cuda {
namespace {

constexpr unsigned kBlock = 256;
constexpr std::uint64_t kMaxBlocks = 65535;  // a grid-stride loop covers the rest

// One thread per word (grid-stride): acc = row 0; acc op= row q for q = 1..ranks-1; out = acc.
// Rows are `words` words apart. op: 4 and, 5 or, 6 xor (VYRE_REDUCE_*), 7 f32 add; 8 f64 add,
// one thread per 8-byte element (a separate loop, F64). Additions are add.rn, in rank order:
// the fold of float sums that must not depend on NCCL's algorithm (VYRE_REDUCE_SUM_RANK_ORDER).
constexpr const char* kBody = R"(
.visible .entry vyre_collective_bitwise(
	.param .u64 gathered,
	.param .u64 out,
	.param .u64 words,
	.param .u32 ranks,
	.param .u32 op
)
{
	.reg .pred %p<4>;
	.reg .b32 %r<10>;
	.reg .b64 %rd<12>;
	.reg .f32 %f<3>;
	.reg .f64 %fd<3>;

	ld.param.u64 %rd1, [gathered];
	ld.param.u64 %rd2, [out];
	ld.param.u64 %rd3, [words];
	ld.param.u32 %r1, [ranks];
	ld.param.u32 %r2, [op];
	cvta.to.global.u64 %rd1, %rd1;
	cvta.to.global.u64 %rd2, %rd2;
	mov.u32 %r3, %ctaid.x;
	mov.u32 %r4, %ntid.x;
	mov.u32 %r5, %tid.x;
	mul.wide.u32 %rd4, %r3, %r4;
	cvt.u64.u32 %rd5, %r5;
	add.u64 %rd4, %rd4, %rd5;
	mov.u32 %r6, %nctaid.x;
	mul.wide.u32 %rd6, %r6, %r4;
	setp.eq.u32 %p1, %r2, 8;
	@%p1 bra F64;
	shl.b64 %rd7, %rd3, 2;
WORD:
	setp.ge.u64 %p1, %rd4, %rd3;
	@%p1 bra DONE;
	shl.b64 %rd8, %rd4, 2;
	add.u64 %rd9, %rd1, %rd8;
	ld.global.u32 %r7, [%rd9];
	mov.u32 %r8, 1;
RANK:
	setp.ge.u32 %p2, %r8, %r1;
	@%p2 bra STORE;
	add.u64 %rd9, %rd9, %rd7;
	ld.global.u32 %r9, [%rd9];
	setp.eq.u32 %p3, %r2, 4;
	@%p3 and.b32 %r7, %r7, %r9;
	setp.eq.u32 %p3, %r2, 5;
	@%p3 or.b32 %r7, %r7, %r9;
	setp.eq.u32 %p3, %r2, 6;
	@%p3 xor.b32 %r7, %r7, %r9;
	setp.eq.u32 %p3, %r2, 7;
	@!%p3 bra NEXT;
	mov.b32 %f1, %r7;
	mov.b32 %f2, %r9;
	add.rn.f32 %f1, %f1, %f2;
	mov.b32 %r7, %f1;
NEXT:
	add.u32 %r8, %r8, 1;
	bra RANK;
STORE:
	add.u64 %rd10, %rd2, %rd8;
	st.global.u32 [%rd10], %r7;
	add.u64 %rd4, %rd4, %rd6;
	bra WORD;
F64:
	shr.u64 %rd3, %rd3, 1;
	shl.b64 %rd7, %rd3, 3;
ELEMENT:
	setp.ge.u64 %p1, %rd4, %rd3;
	@%p1 bra DONE;
	shl.b64 %rd8, %rd4, 3;
	add.u64 %rd9, %rd1, %rd8;
	ld.global.f64 %fd1, [%rd9];
	mov.u32 %r8, 1;
F64_RANK:
	setp.ge.u32 %p2, %r8, %r1;
	@%p2 bra F64_STORE;
	add.u64 %rd9, %rd9, %rd7;
	ld.global.f64 %fd2, [%rd9];
	add.rn.f64 %fd1, %fd1, %fd2;
	add.u32 %r8, %r8, 1;
	bra F64_RANK;
F64_STORE:
	add.u64 %rd10, %rd2, %rd8;
	st.global.f64 [%rd10], %fd1;
	add.u64 %rd4, %rd4, %rd6;
	bra ELEMENT;
DONE:
	ret;
}
)";

}  // namespace

std::string bitwise_reduce_ptx(const Target& target) {
  return fmt::format(".version {}\n.target {}\n.address_size 64\n{}", target.ptx_isa_version(), target.name(), kBody);
}

BitwiseKernel::BitwiseKernel(Runtime& runtime) : runtime_(runtime) {
  runtime.bind();
  const Driver& driver = runtime.driver();
  const std::string ptx = bitwise_reduce_ptx(runtime.target());
  driver.check(driver.cuModuleLoadDataEx(&module_, ptx.c_str(), 0, nullptr, nullptr),
               "cuModuleLoadDataEx(the bitwise reduction of collectives)",
               "check the device (nvidia-smi) and the driver's PTX JIT; after a sticky device error the instance "
               "must be recreated");
  const drv::CUresult found = driver.cuModuleGetFunction(&function_, module_, kBitwiseEntry);
  if (found != drv::CUDA_SUCCESS) {
    driver.cuModuleUnload(module_);
    driver.check(found, "cuModuleGetFunction(vyre_collective_bitwise)");
  }
}

BitwiseKernel::~BitwiseKernel() {
  if (module_ == nullptr) return;
  if (runtime_.bind_quietly()) runtime_.driver().cuModuleUnload(module_);
}

void BitwiseKernel::launch(drv::CUstream stream, drv::CUdeviceptr gathered, drv::CUdeviceptr out, std::uint64_t words,
                           std::uint32_t ranks, std::uint32_t op) const {
  if (words == 0) return;
  const auto blocks = static_cast<unsigned>(std::min<std::uint64_t>((words + kBlock - 1) / kBlock, kMaxBlocks));
  void* params[] = {&gathered, &out, &words, &ranks, &op};
  const Driver& driver = runtime_.driver();
  driver.check(driver.cuLaunchKernel(function_, blocks, 1, 1, kBlock, 1, 1, 0, stream, params, nullptr),
               "cuLaunchKernel(vyre_collective_bitwise)");
  Telemetry::add(runtime_.telemetry().kernel_launches);
}

}  // namespace vyre::cuda
