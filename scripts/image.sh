#!/usr/bin/env bash
# Builds the OCI image of `charter serve` with Debian's umoci (no container
# engine, no daemon, no base image): a root filesystem of the charter binary
# (debug information stripped) and exactly the shared libraries it links, as
# `ldd` lists them, plus /etc/passwd and /etc/group naming the user 65532
# ("nonroot", as distroless'). No shell, no package manager, nothing writable:
# the image runs with a read-only root filesystem. `make image` runs it.
#
#   scripts/image.sh BUILD_DIR OUT_DIR [TAG]
#
# writes OUT_DIR/oci (an OCI image layout; the image is `charter:TAG`, TAG
# defaulting to `dev`, the tag deploy/charter.yaml names) and
# OUT_DIR/charter-image.tar (the same layout as one file). Push either with
# skopeo, for example:
#   skopeo copy oci:OUT_DIR/oci:dev docker://registry.example.com/charter:dev
#   skopeo copy oci-archive:OUT_DIR/charter-image.tar:dev docker://registry.example.com/charter:dev
set -euo pipefail

[[ $# -ge 2 && $# -le 3 ]] || { echo "usage: $0 BUILD_DIR OUT_DIR [TAG]" >&2; exit 2; }
build=$(realpath "$1")
out=$(realpath -m "$2")
tag=${3:-dev}
charter="$build/cli/charter"
say() { echo "image.sh: $*" >&2; }

command -v umoci >/dev/null || { say "umoci not found: apt-get install umoci (make deps)"; exit 1; }
[[ -x "$charter" ]] || { say "$charter not found: run make build first"; exit 1; }
version=$("$charter" --version 2>/dev/null | awk '{print $2}' || true)

work=$(mktemp -d "${TMPDIR:-/tmp}/charter-image.XXXXXX")
trap 'rm -rf "$work"' EXIT
rootless=()
[[ $(id -u) -eq 0 ]] || rootless=(--rootless)

layout="$out/oci"
rm -rf "$layout" "$out/charter-image.tar"
mkdir -p "$out"
umoci init --layout "$layout"
umoci new --image "$layout:$tag"
umoci unpack "${rootless[@]}" --image "$layout:$tag" "$work/bundle" >/dev/null
rootfs="$work/bundle/rootfs"

# The server, without its debug information (a tenth of the size).
install -d -m 0755 "$rootfs/usr/bin"
objcopy --strip-debug "$charter" "$rootfs/usr/bin/charter"
chmod 0755 "$rootfs/usr/bin/charter"

# Exactly what it links: each library ldd resolves, at the path the loader
# looks for it, and the loader itself (the binary's PT_INTERP).
libs=()
while read -r line; do
  case "$line" in
    *"=> not found"*) say "a library charter links is not found: $line"; exit 1 ;;
    *"=> /"*) libs+=("$(sed -E 's/.*=> ([^ ]+) .*/\1/' <<<"$line")") ;;
    /*) libs+=("${line%% *}") ;;
  esac
done < <(ldd "$charter")
for lib in "${libs[@]}"; do
  install -d -m 0755 "$rootfs$(dirname "$lib")"
  cp -L "$lib" "$rootfs$lib"
  chmod 0644 "$rootfs$lib"
done
chmod 0755 "$rootfs"/lib64/ld-linux-*.so.* 2>/dev/null || true

# The user the server runs as, and no other but root (who owns every file).
install -d -m 0755 "$rootfs/etc"
printf 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n' \
  >"$rootfs/etc/passwd"
printf 'root:x:0:\nnonroot:x:65532:\n' >"$rootfs/etc/group"
chmod 0644 "$rootfs/etc/passwd" "$rootfs/etc/group"
# Where deploy/charter.yaml mounts the bundle, the configuration and the TLS pair.
install -d -m 0755 "$rootfs/etc/charter"

umoci repack --image "$layout:$tag" "$work/bundle"
umoci config --image "$layout:$tag" \
  --config.user 65532:65532 \
  --config.entrypoint /usr/bin/charter --config.cmd serve \
  --config.workingdir / \
  --config.exposedports 8443/tcp \
  --config.label "org.opencontainers.image.title=charter" \
  --config.label "org.opencontainers.image.description=charter serve: Kubernetes admission and authorization webhooks decided by Charter policies" \
  --config.label "org.opencontainers.image.version=${version:-unknown}" \
  --history.created_by "scripts/image.sh (umoci)"
umoci gc --layout "$layout"
tar -C "$layout" -cf "$out/charter-image.tar" .

size=$(du -sh "$layout" | cut -f1)
say "charter:$tag in $layout (OCI image layout, $size) and $out/charter-image.tar: /usr/bin/charter and ${#libs[@]} libraries, user 65532"
