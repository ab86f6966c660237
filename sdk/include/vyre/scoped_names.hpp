// Names bound in nested lexical scopes: the variables of a program walk (validator, typing,
// ops_used, every backend's compiler). Every operation is O(log n) in the names bound (a balanced
// tree, so no input can make lookups degrade, unlike a hash table with a fixed hash), and closing a
// scope costs time proportional to the names it bound: a walk over a program of n statements is
// O(n log n) however wide its scopes are.
//
// A name may be declared again while it is bound (the validator reports that, and keeps walking):
// the newer binding hides the older one until its scope closes. Not thread-safe: one per walk.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace vyre {

template <class T>
class ScopedNames {
 public:
  // Bindings point into the name map, so a copy would point into the wrong one: move or swap only.
  ScopedNames() = default;
  ScopedNames(const ScopedNames&) = delete;
  ScopedNames& operator=(const ScopedNames&) = delete;
  ScopedNames(ScopedNames&& other) noexcept { swap(other); }
  ScopedNames& operator=(ScopedNames&& other) noexcept {
    ScopedNames(std::move(other)).swap(*this);
    return *this;
  }
  ~ScopedNames() = default;
  // Exchanges the contents (std::map::swap keeps the bindings' iterators valid).
  void swap(ScopedNames& other) noexcept {
    newest_.swap(other.newest_);
    bindings_.swap(other.bindings_);
    marks_.swap(other.marks_);
  }

  // Open a scope; the names declared from now on are forgotten by the matching close().
  void open() { marks_.push_back(bindings_.size()); }

  // Close the innermost open scope, calling forget(value) for each of its bindings, newest
  // first. Without an open scope it does nothing.
  template <class Forget>
  void close(Forget&& forget) {
    if (marks_.empty()) return;
    const std::size_t mark = marks_.back();
    marks_.pop_back();
    while (bindings_.size() > mark) unbind_newest(forget);
  }
  void close() {
    close([](const T&) {});
  }

  // Bind `name` in the innermost scope (or outside every scope when none is open).
  void declare(std::string name, T value) {
    auto [it, inserted] = newest_.try_emplace(std::move(name), bindings_.size());
    const std::size_t hidden = inserted ? kNone : it->second;
    if (!inserted) it->second = bindings_.size();
    bindings_.push_back(Binding{it, std::move(value), hidden});
  }

  // The newest binding of `name`, or nullptr. The pointer is valid until the next declare or close.
  const T* find(std::string_view name) const {
    auto it = newest_.find(name);
    return it == newest_.end() ? nullptr : &bindings_[it->second].value;
  }

  // Forget every binding (a grid_sync: nothing crosses it), calling forget(name, value) for each,
  // newest first. Open scopes stay open, and empty.
  template <class Forget>
  void clear(Forget&& forget) {
    while (!bindings_.empty()) {
      const Binding& b = bindings_.back();
      forget(b.name->first, b.value);
      unbind_newest([](const T&) {});
    }
    for (std::size_t& mark : marks_) mark = 0;
  }
  void clear() {
    clear([](const std::string&, const T&) {});
  }

  // Bindings in force (hidden ones included).
  std::size_t size() const { return bindings_.size(); }

 private:
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  using Newest = std::map<std::string, std::size_t, std::less<>>;  // name -> index in bindings_

  struct Binding {
    typename Newest::iterator name;  // map iterators stay valid while their entry lives
    T value;
    std::size_t hidden;  // the binding of the same name this one hides, or kNone
  };

  template <class Forget>
  void unbind_newest(Forget&& forget) {
    Binding& b = bindings_.back();
    forget(b.value);
    if (b.hidden == kNone) newest_.erase(b.name);
    else b.name->second = b.hidden;
    bindings_.pop_back();
  }

  Newest newest_;
  std::vector<Binding> bindings_;
  std::vector<std::size_t> marks_;
};

}  // namespace vyre
