#!/usr/bin/env bash
# package_install (tests/package/CMakeLists.txt): install this build into a fresh prefix and use it
# as a stranger would, with the build tree out of reach.
#
#   test_install.sh SOURCE_DIR BUILD_DIR
#
# 1. `cmake --install BUILD_DIR --prefix <tmp>/prefix`; no installed file may mention BUILD_DIR
#    (outside its debug information).
# 2. In a private mount namespace with an empty tmpfs over BUILD_DIR (`unshare`; exit 77 where that
#    is impossible), with VYRE_* variables unset:
#    - the installed `vyre backends` searches only <prefix>/lib/vyre/plugins and sees exactly the
#      plugin files installed there;
#    - examples/embed, configured with find_package(vyre) against the prefix, sees the same files
#      and routes and runs its xor; built again through pkg-config (vyre.pc), it runs too;
#    - the installed Python package (with the Python it was built for) searches the same directory,
#      sees the same files and runs an xor;
#    - examples/out_of_tree_plugin, built against the installed kit and installed into the prefix,
#      exports only vyre_backend_register and needs no vyre library; afterwards both `vyre backends`
#      and the embedding app see it, and the app's xor routes to the best-ranked available backend (tiny_xor's rank 100 beats
#      the reference, not vulkan's 20).
set -euo pipefail

src=$(cd "$1" && pwd)
build=$(cd "$2" && pwd)

fail() { echo "FAIL: $*" >&2; exit 1; }

if [ "${VYRE_PACKAGE_TEST_INSIDE:-}" != 1 ]; then
  work=$(cd "$(mktemp -d "${TMPDIR:-/tmp}/vyre-package.XXXXXX")" && pwd -P)
  trap 'rm -rf "$work"' EXIT
  echo "== install into $work/prefix"
  cmake --install "$build" --prefix "$work/prefix" >"$work/install.log" || { cat "$work/install.log"; fail "cmake --install"; }
  # Debug information names the directory it was compiled in (DW_AT_comp_dir: a Debug or sanitizer
  # build); that changes nothing at run time, so a file counts only if it still names the build tree
  # with its debug sections stripped.
  matches=""
  for file in $(grep -rlF "$build" "$work/prefix" || true); do
    if objcopy --strip-debug "$file" "$work/stripped" 2>/dev/null && ! grep -qF "$build" "$work/stripped"; then
      continue
    fi
    matches="$matches $file"
  done
  rm -f "$work/stripped"
  [ -z "$matches" ] || fail "installed files mention the build tree $build:$matches"
  if ! unshare --mount --map-root-user true 2>/dev/null; then
    echo "SKIP: no private mount namespace here (unshare --mount --map-root-user failed), so the build tree cannot be hidden"
    exit 77
  fi
  # The examples' build directories are in $work too, outside both trees.
  VYRE_PACKAGE_TEST_INSIDE=1 VYRE_PACKAGE_WORK=$work exec unshare --mount --map-root-user \
    bash -c 'mount -t tmpfs vyre-hidden "$1" && exec "$0" "$2" "$1"' "$0" "$build" "$src" \
    || fail "the test inside the namespace"
fi

# ---- inside the namespace: BUILD_DIR is an empty tmpfs ----------------------------------------------
work=$VYRE_PACKAGE_WORK
cd "$work"  # the working directory may still be inside the hidden tree
prefix=$work/prefix
plugins=$prefix/lib/vyre/plugins
[ -z "$(ls -A "$build")" ] || fail "the build tree is still visible"
unset VYRE_PLUGIN_PATH VYRE_BACKEND VYRE_CERT_DIR VYRE_VERIFY_PLUGINS
export CMAKE_PREFIX_PATH=$prefix

# The plugin files the installed tools list: loaded (file: ...) and rejected, as basenames.
backends_files() {
  "$prefix/bin/vyre" backends >"$work/backends.txt" || fail "vyre backends"
  sed -n 's/^    file: //p; s/^  \(\/[^:]*\): \[.*/\1/p' "$work/backends.txt" | sort
}
# What is installed, as full paths.
installed_files() { ls -1 "$plugins"/libvyre_*.so | sort; }

expect_same() {  # NAME EXPECTED ACTUAL
  if [ "$2" != "$3" ]; then
    printf 'expected:\n%s\nactual:\n%s\n' "$2" "$3" >&2
    fail "$1"
  fi
}

check_backends() {
  local found
  found=$(backends_files)
  expect_same "vyre backends lists exactly the installed plugins" "$(installed_files)" "$found"
  local dirs
  dirs=$(sed -n '/^search directories:/,/^backends/{/^  /p}' "$work/backends.txt" | sed 's/^  //')
  expect_same "vyre backends searches only the installed plugin directory" "$plugins" "$dirs"
}

# The xor must go to the best-ranked backend `vyre backends` can create (vulkan on a machine with a
# Vulkan device; otherwise tiny_xor once installed, else reference_cpu).
expect_best_route() {
  local best
  best=$(awk '/^  [^ ]+ [^ ]+  rank /{id=$1} /^    create: ok/ && !found {print id; found=1}' "$work/backends.txt")
  [ -n "$best" ] || fail "vyre backends shows no backend it can create"
  grep -q "^routed to $best:" "$work/embed_run.txt" || fail "the xor did not route to $best, the best-ranked available backend"
}

check_embed_app() {  # APP
  local found
  found=$("$1" --plugins | sed -n 's/^loaded [^ ]* //p; s/^rejected //p' | sort)
  expect_same "$1 sees exactly the installed plugins" "$(installed_files)" "$found"
  "$1" >"$work/embed_run.txt" || { cat "$work/embed_run.txt"; fail "$1 run"; }
  grep -q '^ok: 1024 elements$' "$work/embed_run.txt" || fail "$1 printed no ok line"
}

echo "== installed vyre backends"
[ -n "$(installed_files)" ] || fail "no plugin installed in $plugins"
check_backends

echo "== examples/embed through find_package(vyre)"
cmake -S "$src/examples/embed" -B "$work/embed" -G Ninja -DCMAKE_BUILD_TYPE=Release >"$work/embed.log" 2>&1 \
  || { cat "$work/embed.log"; fail "configure examples/embed"; }
cmake --build "$work/embed" >>"$work/embed.log" 2>&1 || { cat "$work/embed.log"; fail "build examples/embed"; }
check_embed_app "$work/embed/embed_app"
expect_best_route
grep -q "^    reference oracle: pinned" "$work/backends.txt" || fail "the installed reference_cpu is not the pinned oracle"

echo "== examples/embed through pkg-config (vyre.pc)"
# shellcheck disable=SC2046
g++ -O1 -o "$work/embed_pc" "$src/examples/embed/main.cpp" \
  $(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags --libs vyre) || fail "build through pkg-config"
check_embed_app "$work/embed_pc"

echo "== the installed Python package"
site=$(ls -d "$prefix"/lib/python3*/site-packages 2>/dev/null | head -1)
if [ -n "${VYRE_PACKAGE_PYTHON:-}" ] && [ -n "$site" ]; then
  PYTHONPATH=$site PYTHONDONTWRITEBYTECODE=1 "$VYRE_PACKAGE_PYTHON" - "$plugins" "$(installed_files)" <<'PY' \
    || fail "the installed Python package"
import os, sys
import numpy as np
import vyre
plugins, installed = os.path.realpath(sys.argv[1]), sorted(sys.argv[2].split())
registry = vyre.Registry(use_environment=False)
assert [os.path.realpath(d) for d in registry.search_dirs] == [plugins], registry.search_dirs
assert sorted(p.path for p in registry.plugins) == installed, registry.plugins
a = np.arange(1024, dtype=np.uint32)
k = vyre.ProgramBuilder(workgroup=64)
x, y, out = k.buffer("a", "read", "u32", 1024), k.buffer("b", "read", "u32", 1024), k.buffer("out", "output", "u32", 1024)
i = k.let("i", k.invocation_id())
out[i] = x[i] ^ y[i]
assert (registry.route(k.build()).backend.run(k.build(), a=a, b=~a) == a ^ ~a).all()
print("python: ok")
PY
else
  echo "(no Python package installed: skipped)"
fi

echo "== examples/out_of_tree_plugin against the installed kit"
cmake -S "$src/examples/out_of_tree_plugin" -B "$work/tiny" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  >"$work/tiny.log" 2>&1 || { cat "$work/tiny.log"; fail "configure examples/out_of_tree_plugin"; }
cmake --build "$work/tiny" >>"$work/tiny.log" 2>&1 || { cat "$work/tiny.log"; fail "build the plugin"; }
cmake --install "$work/tiny" --prefix "$prefix" >>"$work/tiny.log" 2>&1 || fail "install the plugin"
tiny=$plugins/libvyre_tiny_xor.so
[ -f "$tiny" ] || fail "the plugin was not installed to $tiny"
exports=$(readelf --dyn-syms -W "$tiny" | awk '$1 ~ /^[0-9]+:$/ && $5 != "LOCAL" && $7 != "UND" && $8 != "" {print $8}' | sort -u)
expect_same "the plugin exports only vyre_backend_register" "vyre_backend_register" "$exports"
if readelf -d "$tiny" | grep -q 'NEEDED.*libvyre'; then fail "the plugin needs a vyre library"; fi

check_backends
grep -q '^  tiny_xor 0.1.0' "$work/backends.txt" || fail "vyre backends does not list tiny_xor as loaded"
check_embed_app "$work/embed/embed_app"
expect_best_route
echo "package_install: passed"
