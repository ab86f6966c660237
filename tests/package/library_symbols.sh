#!/usr/bin/env bash
# library_symbols: vyre's shared libraries, plugins and Python module export no copy of the C++
# runtime. A toolchain that links libstdc++ statically (the GPU machine's g++ 13 did) made
# libvyre_sdk.so export its private copy: GNU_UNIQUE symbols and out-of-line libstdc++ functions
# (locale facets, ios_base), to which the process's libstdc++.so then bound its own references;
# `import vyre; import torch` aborted in free(). Every file must have no GNU_UNIQUE dynamic symbol
# and define none of libstdc++'s own out-of-line members (CMakeLists.txt: --exclude-libs,ALL and
# -fno-gnu-unique).
#   library_symbols.sh FILE...
set -u
command -v readelf >/dev/null || { echo "SKIP: readelf not found (binutils)"; exit 77; }
# Defined only by a copy of libstdc++ itself (never instantiated in user code: non-template members).
runtime='^_ZNSt6locale5facetD[012]Ev$|^_ZNSt8ios_baseD[012]Ev$|^_ZNSt8ios_base4InitC[12]Ev$|^_ZSt9terminatev$|^_ZNSt9bad_allocD[012]Ev$|^_ZNSt12__basic_fileIcED[12]Ev$'
failed=0
for lib in "$@"; do
  [ -f "$lib" ] || { echo "FAIL: $lib does not exist"; failed=1; continue; }
  syms=$(readelf --dyn-syms -W "$lib") || { echo "FAIL: readelf $lib"; failed=1; continue; }
  unique=$(awk '$5 == "UNIQUE" && $7 != "UND" {print $8}' <<<"$syms")
  copied=$(awk '$1 ~ /^[0-9]+:$/ && $7 != "UND" && $5 != "LOCAL" {sub(/@.*/, "", $8); print $8}' <<<"$syms" | grep -E "$runtime")
  if [ -n "$unique" ]; then
    echo "FAIL: $lib has $(wc -l <<<"$unique") GNU_UNIQUE symbols, e.g. $(head -3 <<<"$unique" | tr '\n' ' ')"
    failed=1
  fi
  if [ -n "$copied" ]; then
    echo "FAIL: $lib exports libstdc++'s own symbols (a static copy of the C++ runtime): $(head -3 <<<"$copied" | tr '\n' ' ')"
    failed=1
  fi
  [ -z "$unique$copied" ] && echo "ok: $lib"
done
exit $failed
