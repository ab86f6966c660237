#!/usr/bin/env bash
# Session 2026-11-27c: P9 in its resident form, the final python_cases.py, twice.
set -u
R=$OUT; L=/tmp/ku; mkdir -p $L; O=$R/out.txt; t0=$(date +%s); st() { echo "[$(( $(date +%s)-t0 ))s] $*" >> $O; }
PY=/opt/torch/.venv/bin/python; B=$PWD/build-gpu
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DVYRE_WERROR=OFF -DVYRE_PYTHON_EXECUTABLE=$PY > $L/configure.txt 2>&1; st "configure rc $?"
cmake --build $B -j 16 --target vyre-bench vyre_python vyre_cuda vyre_reference_cpu > $L/build.txt 2>&1; st "build rc $?"
for run in 1 2; do
  timeout 40 $B/bin/vyre-bench --case P2 --case P9 --backend cuda --json $L/vyre$run.json > $L/vyre$run.txt 2>&1; st "vyre-bench rc $?"
  PYTHONPATH=$B/python timeout 90 $PY bench/python_cases.py --vyre $L/vyre$run.json --json $L/python$run.json > $L/python$run.txt 2>&1; st "python_cases rc $?"
  tail -2 $L/vyre$run.txt >> $O
  $PY -c "import json; d=json.load(open('$L/python$run.json')); [print(c['id'], c.get('value',{}).get('median'), c.get('verification'), {k:(v.get('median') if isinstance(v,dict) and 'median' in v else v) for k,v in c.get('extra',{}).items() if k not in ('import_cache','torch','torch_cuda','device')}) for c in d['cases']]" >> $O 2>&1
done
tar czf $R/ku.tgz -C /tmp ku
cat $O
