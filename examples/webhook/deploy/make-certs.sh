#!/usr/bin/env bash
# The server's TLS pair for a cluster without cert-manager (cert-manager.yaml
# does this with it): a CA of its own and a certificate for the Service
# charter.charter-system.svc signed by it, made with openssl; the Secret
# charter-tls that deploy/charter.yaml mounts; and webhook.yaml with its
# caBundle set to that CA. Writes into OUT (default ./charter-certs), and with
# --apply also applies the Secret and the webhook with kubectl.
#
#   examples/webhook/deploy/make-certs.sh [--out OUT] [--namespace NS] [--service NAME] [--days N] [--apply]
#
# Run it again before the certificate expires (--days, default 365) to renew
# it: the CA is kept when OUT/ca.key exists, so caBundle stays the same, and
# the server reloads the Secret when the kubelet updates it. Keep OUT/ca.key
# secret, or delete it once the Secret is applied (a new CA then means a new
# caBundle).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
out=charter-certs namespace=charter-system service=charter days=365 apply=0
while (($#)); do
  case "$1" in
    --out) out=$2; shift 2 ;;
    --namespace) namespace=$2; shift 2 ;;
    --service) service=$2; shift 2 ;;
    --days) days=$2; shift 2 ;;
    --apply) apply=1; shift ;;
    *) echo "usage: $0 [--out OUT] [--namespace NS] [--service NAME] [--days N] [--apply]" >&2; exit 2 ;;
  esac
done
command -v openssl >/dev/null || { echo "make-certs.sh: openssl not found" >&2; exit 1; }
mkdir -p "$out"
umask 077
dns="$service.$namespace.svc"

if [[ ! -f "$out/ca.key" ]]; then
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 3650 \
    -subj "/CN=$service-ca" -addext "basicConstraints=critical,CA:TRUE" \
    -addext "keyUsage=critical,keyCertSign,cRLSign" \
    -keyout "$out/ca.key" -out "$out/ca.crt" 2>/dev/null
fi
openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "/CN=$dns" \
  -keyout "$out/tls.key" -out "$out/tls.csr" 2>/dev/null
printf 'subjectAltName=DNS:%s,DNS:%s.cluster.local\nextendedKeyUsage=serverAuth\nkeyUsage=critical,digitalSignature,keyEncipherment\nbasicConstraints=CA:FALSE\n' \
  "$dns" "$dns" >"$out/tls.ext"
openssl x509 -req -in "$out/tls.csr" -CA "$out/ca.crt" -CAkey "$out/ca.key" -CAcreateserial \
  -days "$days" -extfile "$out/tls.ext" -out "$out/tls.crt" 2>/dev/null
rm -f "$out/tls.csr" "$out/tls.ext" "$out/ca.srl"
chmod 0644 "$out/ca.crt" "$out/tls.crt"

b64() { base64 -w0 <"$1"; }
cat >"$out/secret.yaml" <<EOF
apiVersion: v1
kind: Secret
metadata:
  name: $service-tls
  namespace: $namespace
type: kubernetes.io/tls
data:
  tls.crt: $(b64 "$out/tls.crt")
  tls.key: $(b64 "$out/tls.key")
EOF
# The webhook with caBundle set (every webhook of the file).
sed "s|caBundle: \"\"|caBundle: $(b64 "$out/ca.crt")|" "$here/webhook.yaml" >"$out/webhook.yaml"
chmod 0644 "$out/webhook.yaml"

echo "make-certs.sh: $out/tls.crt for $dns (signed by $out/ca.crt, $days days), $out/secret.yaml, $out/webhook.yaml (caBundle set)" >&2
if ((apply)); then
  kubectl apply -f "$out/secret.yaml" -f "$out/webhook.yaml"
else
  echo "make-certs.sh: apply with: kubectl apply -f $out/secret.yaml -f $out/webhook.yaml" >&2
fi
