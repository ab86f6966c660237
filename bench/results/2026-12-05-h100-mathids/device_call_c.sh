#!/usr/bin/env bash
# 2026-12-05 (second session), call C on the same machine (call A's build-gpu): exhaustive f32
# exp, exp2, tanh, sinh and cosh on cuda (O28).
set -u
R=$OUT; L=/tmp/kaj3; mkdir -p $L; O=$R/out.txt; t0=$(date +%s); st() { echo "[$(( $(date +%s)-t0 ))s] $*" >> $O; }
B=$PWD/build-gpu
cmake --build $B -j 16 --target vyre_cuda vyre_reference_cpu vyre-conform > $L/build.txt 2>&1; st "build rc $?"
for op in un.exp.f32 un.exp2.f32 un.tanh.f32 un.sinh.f32 un.cosh.f32; do
  timeout 80 $B/bin/vyre-conform --plugins $B/plugins --backend cuda --ops $op --exhaustive --out $L/exh-$op --no-progress > $L/exh-$op.txt 2>&1
  st "$op rc $?"; grep -h '"max_ulp"\|"failures"' $L/exh-$op/*.json | tr -d ' \n' >> $O; echo >> $O
done
tar czf $R/kaj3.tgz -C /tmp kaj3
cat $O
