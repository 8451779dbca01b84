#!/usr/bin/env bash
# Runs the webhook example's server in the foreground: compiles the policies
# against the governance and Kubernetes schemas into a bundle, then serves it.
#
#   examples/webhook/serve.sh ADDR:PORT CERT KEY [charter serve flags...]
#
# The charter binary is $CHARTER if set, else cli/charter in the build
# directory ($BUILD_DIR, else build/, relative to the repository root unless
# absolute). The bundle is written to $BUNDLE (default: webhook.bundle in the
# build directory). Decisions are logged on stdout.
set -euo pipefail

if (($# < 3)); then
  echo "usage: serve.sh ADDR:PORT CERT KEY [charter serve flags...]" >&2
  exit 2
fi
listen="$1" cert="$2" key="$3"
shift 3

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build_dir="${BUILD_DIR:-build}"
[[ "$build_dir" == /* ]] || build_dir="$root/$build_dir"
charter="${CHARTER:-$build_dir/cli/charter}"
if [[ ! -x "$charter" ]]; then
  echo "serve.sh: no charter binary at $charter; run \`make build\` first" >&2
  exit 1
fi
bundle="${BUNDLE:-$build_dir/webhook.bundle}"
schemas=(--schema "$root/stdlib/governance.cedarschema" --schema "$root/stdlib/kubernetes.cedarschema")

"$charter" build --policies "$here/policies.cedar" "${schemas[@]}" -o "$bundle"
exec "$charter" serve --bundle "$bundle" --entities "$here/entities.json" "${schemas[@]}" \
  --config "$here/config.json" --tls-cert "$cert" --tls-key "$key" --listen "$listen" \
  --decision-log - "$@"
