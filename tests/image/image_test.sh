#!/usr/bin/env bash
# The OCI image of `charter serve` (scripts/image.sh, `make image`): built with
# umoci, unpacked again, checked (user 65532, entrypoint, nothing in the root
# filesystem but the server and the libraries it links, nothing writable), and
# run from its own root filesystem, mounted read-only, as user 65532, with the
# arguments deploy/charter.yaml gives it (on 127.0.0.1), the example's files
# where the manifest mounts them: it answers a review as the server built here
# does. Stops the server by pid on any exit.
#
#   tests/image/image_test.sh BUILD_DIR     (from the repository root, as root; ctest runs it)
set -euo pipefail
build=$(realpath "$1")
root=$(pwd)
charter="$build/cli/charter"
work=$(mktemp -d "${TMPDIR:-/tmp}/charter-image-test.XXXXXX")
server_pid=""
runner_pid=""
cleanup() {
  if [[ -n "$server_pid" ]] && kill -0 "$server_pid" 2>/dev/null; then kill -TERM "$server_pid" || true; fi
  if [[ -n "$runner_pid" ]]; then wait "$runner_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
check() { local what=$1; shift; if "$@"; then echo "ok: $what"; else fail "$what"; fi; }

[[ $(id -u) -eq 0 ]] || { echo "FAIL: run as root (the test mounts and changes root)" >&2; exit 1; }

bash "$root/scripts/image.sh" "$build" "$work/out" dev
check "the layout is an OCI image layout" grep -q '"imageLayoutVersion"' "$work/out/oci/oci-layout"
check "the image is tagged dev" grep -q '"org.opencontainers.image.ref.name":"dev"' "$work/out/oci/index.json"
check "the tarball holds the same layout" tar -tf "$work/out/charter-image.tar" ./index.json

# Unpacked as a runtime would.
umoci unpack --image "$work/out/oci:dev" "$work/bundle" >/dev/null
rootfs="$work/bundle/rootfs"
spec="$work/bundle/config.json"
check "it runs as user and group 65532" \
  test "$(jq -r '"\(.process.user.uid):\(.process.user.gid)"' "$spec")" = "65532:65532"
check "its entrypoint is charter serve" test "$(jq -c .process.args "$spec")" = '["/usr/bin/charter","serve"]'

# Nothing but the server and what it links (and the two files naming the user).
expected=$( (echo /usr/bin/charter; echo /etc/passwd; echo /etc/group
  ldd "$charter" | sed -nE 's/.*=> (\/[^ ]+) .*/\1/p; s/^\s*(\/[^ ]+) .*/\1/p') | sort -u)
actual=$(cd "$rootfs" && find . \( -type f -o -type l \) | sed 's/^\.//' | sort)
if [[ "$expected" == "$actual" ]]; then
  echo "ok: the root filesystem holds the server and the $(wc -l <<<"$expected") files it needs, nothing else"
else
  fail "the root filesystem's files differ from the server and its libraries: $(diff <(echo "$expected") <(echo "$actual") | head -20)"
fi
check "there is no shell" test ! -e "$rootfs/bin/sh"
writable=$(find "$rootfs" \( ! -uid 0 -o -perm -o+w \) ! -type l | head -5)
check "no file is owned by or writable for the server's user ($writable)" test -z "$writable"

# The example's files where deploy/charter.yaml mounts them (its volumes).
"$charter" build --policies examples/webhook/policies.cedar \
  --schema stdlib/governance.cedarschema --schema stdlib/kubernetes.cedarschema -o "$work/webhook.bundle" >/dev/null
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 -subj /CN=charter-image-test \
  -addext subjectAltName=IP:127.0.0.1 -keyout "$work/tls.key" -out "$work/tls.crt" 2>/dev/null
mkdir -p "$rootfs/etc/charter/bundle" "$rootfs/etc/charter/config" "$rootfs/etc/charter/tls"
cp "$work/webhook.bundle" "$rootfs/etc/charter/bundle/"
cp examples/webhook/entities.json examples/webhook/config.json stdlib/governance.cedarschema \
  stdlib/kubernetes.cedarschema "$rootfs/etc/charter/config/"
cp "$work/tls.crt" "$work/tls.key" "$rootfs/etc/charter/tls/"
chmod 0644 "$rootfs"/etc/charter/*/*

# The container's arguments, from the manifest; loopback and a port the kernel picks.
mapfile -t args < <(python3 -c '
import sys, yaml
for d in yaml.safe_load_all(open("examples/webhook/deploy/charter.yaml")):
    if d and d["kind"] == "Deployment":
        c = d["spec"]["template"]["spec"]["containers"][0]
        print(c["image"])
        for a in c["args"]:
            print("--listen=127.0.0.1:0" if a.startswith("--listen=") else a)')
image=${args[0]}
args=("${args[@]:1}")
check "the manifest runs the image make image tags ($image)" test "$image" = "charter:dev"

# Its root filesystem read-only (a bind mount remounted ro, in a mount
# namespace of its own), as user 65532, with /proc mounted as a container
# runtime mounts it (a sanitized build's runtime reads /proc/self at exit).
cat >"$work/run.sh" <<'EOF'
set -e
rootfs=$1; shift
mkdir -p "$rootfs/proc"
mount --bind "$rootfs" "$rootfs"
mount -o remount,bind,ro "$rootfs"
mount -t proc proc "$rootfs/proc"
echo $$ >"$PIDFILE"
exec chroot --userspec=65532:65532 "$rootfs" /usr/bin/charter "$@"
EOF
PIDFILE="$work/pid" unshare --mount --propagation private --fork bash "$work/run.sh" "$rootfs" "${args[@]}" \
  >"$work/stdout" 2>"$work/stderr" &
runner_pid=$!
port=""
for _ in $(seq 1 200); do
  [[ -s "$work/pid" ]] && server_pid=$(cat "$work/pid")
  port=$(sed -n 's|.*listening on https://127.0.0.1:\([0-9]*\) .*|\1|p' "$work/stderr" | head -1)
  [[ -n "$port" ]] && break
  kill -0 "$runner_pid" 2>/dev/null || break
  sleep 0.05
done
if [[ -z "$port" ]]; then
  cat "$work/stderr" >&2
  echo "FAIL: the server in the image did not start" >&2
  exit 1
fi
echo "ok: the server runs from the image's root filesystem, read-only, as 65532: $(head -1 "$work/stderr")"
check "the process runs as 65532" test "$(stat -c %u "/proc/$server_pid")" = 65532
options=$(nsenter -t "$server_pid" -m findmnt -n -o OPTIONS --target "$rootfs" 2>/dev/null || true)
check "its root filesystem is mounted read-only ($options)" test "${options%%,*}" = ro

base="https://127.0.0.1:$port"
curl_tls() { curl --silent --show-error --cacert "$work/tls.crt" "$@"; }
check "/readyz answers ok" test "$(curl_tls "$base/readyz")" = ok
for review in pytorchjob-create.json pod-create-bare-gpu.json pod-create-by-controller.json; do
  got=$(curl_tls -H 'Content-Type: application/json' --data-binary "@tests/serve/reviews/$review" "$base/v1/admission" |
    jq -c '{allowed: .response.allowed, policies: .response.auditAnnotations.policies}')
  want=$(awk -v f="$review" '$1 == f { printf "{\"allowed\":%s,\"policies\":\"%s\"}", ($3 == "allow" ? "true" : "false"), ($4 == "-" ? "" : $4) }' \
    tests/serve/expected.tsv)
  check "the image's server answers $review as expected.tsv says ($got)" test "$got" = "$want"
done

kill -TERM "$server_pid"
status=0
wait "$runner_pid" || status=$?
server_pid=""
runner_pid=""
check "it stops on SIGTERM with status 0" test "$status" = 0
((status == 0)) || tail -20 "$work/stderr" >&2
check "its decision log went to stdout (--decision-log=-)" test "$(wc -l <"$work/stdout")" -ge 3

((failures == 0)) || { echo "$failures check(s) failed" >&2; exit 1; }
echo "the image builds, holds only the server, and serves from a read-only root filesystem as 65532"
