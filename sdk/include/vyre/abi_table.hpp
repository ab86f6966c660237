// The members of vyre_backend_fns as data, expanded from the table's one list in backend_abi.h:
// each member's name, where it ends in the struct, and whether it is a function slot. The host
// side uses it to check a plugin's table (every slot its struct_size covers is non-NULL), to name
// slots in messages, and to tell which members an older plugin's table lacks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "vyre/backend_abi.h"

namespace vyre::abi {

// One enumerator per member of vyre_backend_fns, in table order.
enum class TableMember : std::uint8_t {
#define VYRE_ABI_ENUM_SLOT(ret, name, params) name,
#define VYRE_ABI_ENUM_FIELD(type, name) name,
  VYRE_BACKEND_FNS(VYRE_ABI_ENUM_SLOT, VYRE_ABI_ENUM_FIELD)
#undef VYRE_ABI_ENUM_SLOT
#undef VYRE_ABI_ENUM_FIELD
};

struct TableMemberInfo {
  std::string_view name;  // "dispatch", "extensions"
  std::size_t offset;     // offsetof(vyre_backend_fns, name)
  std::size_t end;        // the struct_size a table needs to have this member
  bool is_slot;           // a function slot (must be non-NULL), else a data member
};

// Indexed by TableMember.
inline constexpr TableMemberInfo kTableMembers[] = {
#define VYRE_ABI_INFO_SLOT(ret, name, params) \
  {#name, offsetof(vyre_backend_fns, name), VYRE_SIZE_THROUGH(vyre_backend_fns, name), true},
#define VYRE_ABI_INFO_FIELD(type, name) \
  {#name, offsetof(vyre_backend_fns, name), VYRE_SIZE_THROUGH(vyre_backend_fns, name), false},
    VYRE_BACKEND_FNS(VYRE_ABI_INFO_SLOT, VYRE_ABI_INFO_FIELD)
#undef VYRE_ABI_INFO_SLOT
#undef VYRE_ABI_INFO_FIELD
};

constexpr const TableMemberInfo& table_member(TableMember member) {
  return kTableMembers[static_cast<std::size_t>(member)];
}

// Whether `fns` (a table whose struct_size the host has checked) has `member`.
constexpr bool table_has(const vyre_backend_fns& fns, TableMember member) {
  return fns.struct_size >= table_member(member).end;
}

}  // namespace vyre::abi
