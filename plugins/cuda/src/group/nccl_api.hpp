// The slice of NCCL's C API that device groups use, declared here instead of including nccl.h (it
// ships only with NCCL itself, e.g. in the nvidia-nccl-cu13 Python package), so the plugin builds
// and registers without NCCL. libnccl.so.2 is opened at run time (nccl_library.hpp). Types,
// values and signatures are those of NCCL 2.18+ (stable since; 2.28 is what the GPU machines have):
// enums are passed as int, ncclUniqueId by value (128 bytes), cudaStream_t is the driver's
// CUstream (the runtime and driver handle types are the same objects).
#pragma once

#include <cstddef>

#include "runtime/driver_api.hpp"

namespace vyre::cuda::nccl {

// ncclResult_t
using Result = int;
inline constexpr Result ncclSuccess = 0;
inline constexpr Result ncclUnhandledCudaError = 1;
inline constexpr Result ncclSystemError = 2;
inline constexpr Result ncclInternalError = 3;
inline constexpr Result ncclInvalidArgument = 4;
inline constexpr Result ncclInvalidUsage = 5;
inline constexpr Result ncclRemoteError = 6;
inline constexpr Result ncclInProgress = 7;

using Comm = struct ncclComm*;  // ncclComm_t

inline constexpr std::size_t kUniqueIdBytes = 128;  // NCCL_UNIQUE_ID_BYTES
struct UniqueId {                                    // ncclUniqueId
  char internal[kUniqueIdBytes];
};

// ncclDataType_t
using DataType = int;
inline constexpr DataType ncclInt8 = 0;
inline constexpr DataType ncclUint8 = 1;
inline constexpr DataType ncclInt32 = 2;
inline constexpr DataType ncclUint32 = 3;
inline constexpr DataType ncclInt64 = 4;
inline constexpr DataType ncclUint64 = 5;
inline constexpr DataType ncclFloat16 = 6;
inline constexpr DataType ncclFloat32 = 7;
inline constexpr DataType ncclFloat64 = 8;
inline constexpr DataType ncclBfloat16 = 9;

// ncclRedOp_t
using RedOp = int;
inline constexpr RedOp ncclSum = 0;
inline constexpr RedOp ncclProd = 1;
inline constexpr RedOp ncclMax = 2;
inline constexpr RedOp ncclMin = 3;

// The oldest NCCL accepted (ncclGetVersion's code: major * 10000 + minor * 100 + patch).
inline constexpr int kMinimumVersion = 21800;

using Stream = drv::CUstream;

// name, return type, parameters: every entry point the library must export.
#define VYRE_NCCL_ENTRY_POINTS(X)                                                                  \
  X(ncclGetVersion, Result, (int* version))                                                        \
  X(ncclGetUniqueId, Result, (UniqueId * id))                                                      \
  X(ncclCommInitRank, Result, (Comm * comm, int nranks, UniqueId id, int rank))                    \
  X(ncclCommDestroy, Result, (Comm comm))                                                          \
  X(ncclCommAbort, Result, (Comm comm))                                                            \
  X(ncclCommGetAsyncError, Result, (Comm comm, Result * async_error))                              \
  X(ncclGetErrorString, const char*, (Result result))                                              \
  X(ncclGetLastError, const char*, (Comm comm))                                                    \
  X(ncclGroupStart, Result, ())                                                                    \
  X(ncclGroupEnd, Result, ())                                                                      \
  X(ncclAllReduce, Result,                                                                         \
    (const void* send, void* recv, std::size_t count, DataType type, RedOp op, Comm comm,          \
     Stream stream))                                                                               \
  X(ncclReduceScatter, Result,                                                                     \
    (const void* send, void* recv, std::size_t recv_count, DataType type, RedOp op, Comm comm,     \
     Stream stream))                                                                               \
  X(ncclAllGather, Result,                                                                         \
    (const void* send, void* recv, std::size_t send_count, DataType type, Comm comm,               \
     Stream stream))                                                                               \
  X(ncclBroadcast, Result,                                                                         \
    (const void* send, void* recv, std::size_t count, DataType type, int root, Comm comm,          \
     Stream stream))                                                                               \
  X(ncclSend, Result,                                                                              \
    (const void* send, std::size_t count, DataType type, int peer, Comm comm, Stream stream))      \
  X(ncclRecv, Result,                                                                              \
    (void* recv, std::size_t count, DataType type, int peer, Comm comm, Stream stream))

#define VYRE_NCCL_DECLARE_PFN(name, ret, params) using PFN_##name = ret(*) params;
VYRE_NCCL_ENTRY_POINTS(VYRE_NCCL_DECLARE_PFN)
#undef VYRE_NCCL_DECLARE_PFN

}  // namespace vyre::cuda::nccl
