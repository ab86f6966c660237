// The kit's implementations of every slot of vyre_backend_fns (installed by register_backend):
// one function per slot, named and typed as the slot, declared from the table's one list.
#pragma once

#include "vyre/backend_abi.h"

namespace vyre::kit::detail {

#define VYRE_KIT_DECLARE_SLOT(ret, name, params) ret name params;
#define VYRE_KIT_NO_FIELD(type, name)
VYRE_BACKEND_FNS(VYRE_KIT_DECLARE_SLOT, VYRE_KIT_NO_FIELD)
#undef VYRE_KIT_DECLARE_SLOT
#undef VYRE_KIT_NO_FIELD

}  // namespace vyre::kit::detail
