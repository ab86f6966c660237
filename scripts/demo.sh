#!/usr/bin/env bash
# The main job: install what is missing, build, then certify every backend that can run here
# against the reference (vyre-conform), print the summary and where the certificates are.
# Certificates are signed with the user's vyre-conform key (created on first use:
# $VYRE_SIGNING_KEY, else ${XDG_CONFIG_HOME:-~/.config}/vyre/keys/certificate-signing.pem), whose
# public key joins the trusted keys that `vyre --certs DIR` routes by.
# Without a GPU it says so, certifies what can dispatch here and lowers every op for CUDA offline
# (PTX assembled with ptxas).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build_dir=${BUILD_DIR:-$root/build}
certs=${CERT_DIR:-$root/certs}

"$root/scripts/deps.sh"
"$root/scripts/build.sh"
bin=$build_dir/bin

echo
echo "== Backends found"
"$bin/vyre" backends

mapfile -t available < <("$bin/vyre" backends --available)
echo
echo "== Backends that can run here: ${available[*]:-none}"

status=0
certified_any=0
for id in "${available[@]}"; do
  [ "$id" = reference_cpu ] && continue  # the oracle; certified against itself below only if alone
  echo
  echo "== Certifying '$id' against reference_cpu"
  "$bin/vyre-conform" --backend "$id" --out "$certs" || status=1
  certified_any=1
done

if [ $certified_any -eq 0 ]; then
  echo
  echo "No GPU backend can run on this machine (see the reasons above)."
  echo
  echo "== Self-check: the reference against itself (proves the harness and writes its certificate)"
  "$bin/vyre-conform" --backend reference_cpu --out "$certs" || status=1
fi

if "$bin/vyre" backends | grep -q '^  cuda ' && ! printf '%s\n' "${available[@]}" | grep -qx cuda; then
  echo
  echo "== CUDA offline: lowering every op to PTX for sm_90 and assembling it with ptxas"
  "$bin/vyre-conform" --backend cuda --offline --out "$certs" || status=1
fi

echo
echo "== Certificates in $certs"
ls -1 "$certs"/*.json 2>/dev/null || echo "(none written)"
echo "Route by them: $bin/vyre --certs $certs run PROGRAM (only certificates signed by a trusted key:"
echo "${VYRE_TRUSTED_KEYS:-${XDG_CONFIG_HOME:-$HOME/.config}/vyre/trusted-keys})"
exit $status
