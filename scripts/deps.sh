#!/usr/bin/env bash
# Install the Debian packages vyre needs, only when something is missing (one apt-get update).
# Idempotent; needs root (or sudo) only when it has something to install.
#   scripts/deps.sh        what building and testing need
#   scripts/deps.sh --ci   also what the CI's reliability steps need (valgrind, clang + libFuzzer)
set -euo pipefail
ci=0
[ "${1:-}" = "--ci" ] && ci=1

need=()
have_header() { [ -e "/usr/include/$1" ] || [ -e "/usr/local/include/$1" ]; }
have_cmd() { command -v "$1" >/dev/null 2>&1; }

have_cmd cmake || need+=(cmake)
have_cmd g++ || need+=(g++)
have_cmd make || need+=(make)
have_cmd git || need+=(git)
have_header boost/dll.hpp && have_header boost/json/src.hpp || need+=(libboost1.81-dev)
have_header fmt/core.h || need+=(libfmt-dev)
have_header doctest/doctest.h || need+=(doctest-dev)
have_header openssl/sha.h || need+=(libssl-dev)
# The Vulkan plugin: headers to build it, the loader and lavapipe (Mesa's CPU driver) to run and
# certify it without a GPU, spirv-tools to validate its SPIR-V in the tests.
have_header vulkan/vulkan_core.h || need+=(libvulkan-dev)
have_header spirv/unified1/spirv.hpp11 || need+=(spirv-headers)
have_cmd spirv-val || need+=(spirv-tools)
ldconfig -p 2>/dev/null | grep -q 'libvulkan\.so\.1 ' || need+=(libvulkan1)
ls /usr/share/vulkan/icd.d/lvp_icd.*.json >/dev/null 2>&1 || need+=(mesa-vulkan-drivers)
# The Python package (python/, docs/PYTHON.md) and its tests, for Debian's python3.
have_py() { [ -x /usr/bin/python3 ] && /usr/bin/python3 -c "$1" >/dev/null 2>&1; }
have_py 'import sysconfig, os, sys; sys.exit(not os.path.exists(sysconfig.get_paths()["include"] + "/Python.h"))' ||
  need+=(python3-dev)
have_py 'import numpy' || need+=(python3-numpy)
have_py 'import pybind11' || need+=(python3-pybind11)
have_header pybind11/pybind11.h || need+=(pybind11-dev)
have_py 'import pytest' || need+=(python3-pytest)
# The multi-process example (examples/multi_process, one process per GPU) is launched by mpirun.
have_cmd mpirun || need+=(openmpi-bin)
if [ $ci -eq 1 ]; then
  have_cmd valgrind || need+=(valgrind)
  have_cmd clang++-14 || have_cmd clang++ || need+=(clang-14)
  ls /usr/lib/llvm-14/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1 ||
    need+=(libclang-rt-14-dev)
fi

if [ ${#need[@]} -eq 0 ]; then
  echo "deps: everything is installed"
  exit 0
fi

echo "deps: installing ${need[*]}"
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  if have_cmd sudo; then sudo_cmd=(sudo); else
    echo "deps: missing ${need[*]} and not root. Fix: run as root or install them with apt-get." >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -q
"${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${need[@]}"
