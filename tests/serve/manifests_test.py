#!/usr/bin/env python3
"""The manifests of examples/webhook/deploy/ parse, have the fields the
Kubernetes API requires of their kinds, and agree with each other and with
`charter serve`: every flag is one the server has, the port it listens on is
the container's, Service's and webhook's, the paths are endpoints it serves,
the files it is given are where the volumes are mounted.

    tests/serve/manifests_test.py CHARTER     (from the repository root)
"""
import os
import re
import subprocess
import sys
from urllib.parse import urlparse

import yaml

charter = sys.argv[1]
deploy = "examples/webhook/deploy"
failures = []


def check(ok, what):
    print(("ok: " if ok else "FAIL: ") + what)
    if not ok:
        failures.append(what)


def load(name):
    with open(os.path.join(deploy, name)) as f:
        return [d for d in yaml.safe_load_all(f) if d is not None]


docs = load("charter.yaml") + load("webhook.yaml")
by_kind = {}
for d in docs:
    check(isinstance(d.get("apiVersion"), str) and isinstance(d.get("kind"), str)
          and isinstance(d.get("metadata", {}).get("name"), str),
          f"{d.get('kind')} has apiVersion, kind and metadata.name")
    by_kind[d["kind"]] = d
known = {"Deployment": "apps/v1", "PodDisruptionBudget": "policy/v1",
         "Service": "v1", "ValidatingWebhookConfiguration": "admissionregistration.k8s.io/v1",
         "NetworkPolicy": "networking.k8s.io/v1"}
for kind, version in known.items():
    check(kind in by_kind and by_kind[kind]["apiVersion"] == version, f"a {kind} of {version}")

# What the server says it has.
help_text = subprocess.run([charter, "serve", "--help"], capture_output=True, text=True).stdout
flags = set(re.findall(r"(--[a-z-]+)", help_text))
endpoints = set(re.findall(r"(/[a-z0-9/]+)", help_text.split("Endpoints:", 1)[1]))
check({"/v1/admission", "/v1/authorization", "/healthz", "/readyz"} <= endpoints,
      f"charter serve --help lists its endpoints ({sorted(endpoints)})")

dep = by_kind["Deployment"]
spec = dep["spec"]
pod = spec["template"]["spec"]
labels = spec["template"]["metadata"]["labels"]
check(spec["replicas"] >= 2, "the Deployment has two or more replicas")
check(spec["selector"]["matchLabels"].items() <= labels.items(), "the Deployment's selector matches its pods")
container = pod["containers"][0]
check(container["args"][0] == "serve", "the container runs `charter serve`")
args = {}
pairs = []  # every flag and value, in order (--schema is given twice)
for a in container["args"][1:]:
    flag, _, value = a.partition("=")
    args[flag] = value
    pairs.append((flag, value))
    check(flag in flags, f"`{flag}` is a flag of charter serve")
for required in ("--bundle", "--tls-cert", "--tls-key", "--listen"):
    check(required in args, f"the container passes {required}")
listen_port = int(args["--listen"].rsplit(":", 1)[1])
ports = {p["name"]: p["containerPort"] for p in container["ports"]}
check(ports.get("https") == listen_port, f"the container port is the one charter listens on ({listen_port})")
for probe in ("readinessProbe", "livenessProbe"):
    get = container[probe]["httpGet"]
    check(get["path"] in endpoints and get["scheme"] == "HTTPS" and get["port"] in ports,
          f"the {probe} asks an endpoint of the server ({get['path']}) over HTTPS on its port")
check(pod["terminationGracePeriodSeconds"] >= 10, "pods have time to drain on SIGTERM")

# Pod Security "restricted" (kubernetes.io/docs/concepts/security/pod-security-standards),
# field by field, for every container; a container's securityContext
# overrides the pod's. And no service-account token: the server never calls
# the Kubernetes API.
check(pod.get("automountServiceAccountToken") is False,
      "the pod mounts no service-account token (automountServiceAccountToken: false)")
for key in ("hostNetwork", "hostPID", "hostIPC"):
    check(not pod.get(key, False), f"the pod does not set {key}")
pod_sc = pod.get("securityContext") or {}
allowed_volumes = {"configMap", "secret", "emptyDir", "projected", "downwardAPI", "csi",
                   "persistentVolumeClaim", "ephemeral"}
for v in pod["volumes"]:
    kinds = set(v) - {"name"}
    check(kinds <= allowed_volumes, f"volume {v['name']} is of a type the restricted profile allows ({sorted(kinds)})")
for c in pod.get("initContainers", []) + pod["containers"] + pod.get("ephemeralContainers", []):
    sc = c.get("securityContext") or {}
    name = c["name"]

    def effective(key):
        return sc[key] if key in sc else pod_sc.get(key)

    check(sc.get("allowPrivilegeEscalation") is False, f"container {name}: allowPrivilegeEscalation is false")
    check(not sc.get("privileged", False), f"container {name} is not privileged")
    caps = sc.get("capabilities") or {}
    check("ALL" in (caps.get("drop") or []), f"container {name} drops ALL capabilities")
    check(set(caps.get("add") or []) <= {"NET_BIND_SERVICE"}, f"container {name} adds no capability but NET_BIND_SERVICE")
    check(effective("runAsNonRoot") is True, f"container {name} runs as non-root (runAsNonRoot)")
    for key in ("runAsUser", "runAsGroup"):
        value = effective(key)
        check(isinstance(value, int) and not isinstance(value, bool) and value > 0,
              f"container {name}: {key} is an explicit user or group that is not root ({value})")
    seccomp = effective("seccompProfile") or {}
    check(seccomp.get("type") in ("RuntimeDefault", "Localhost"),
          f"container {name}: seccompProfile is RuntimeDefault or Localhost ({seccomp.get('type')})")
    check(all("hostPort" not in p for p in c.get("ports", [])), f"container {name} uses no host port")
    check(sc.get("readOnlyRootFilesystem") is True, f"container {name} has a read-only root filesystem")

mounts = {m["mountPath"]: m["name"] for m in container["volumeMounts"]}
volumes = {v["name"]: v for v in pod["volumes"]}
check(set(mounts.values()) <= set(volumes), "every volume mounted is declared")
# The ConfigMaps are made from files (README.md, "Deploying"): a key is the
# file's name.
from_files = {"charter-bundle": {"webhook.bundle"},
              "charter-config": {"entities.json", "config.json", "governance.cedarschema",
                                 "kubernetes.cedarschema"}}
schemas = [os.path.basename(v) for f, v in pairs if f == "--schema"]
check(schemas == ["governance.cedarschema", "kubernetes.cedarschema"],
      "the schema is the governance model and the Kubernetes schema, in the order the bundle was built with")
for flag, path in pairs:
    if flag not in ("--bundle", "--entities", "--schema", "--config", "--tls-cert", "--tls-key"):
        continue
    directory, name = os.path.split(path)
    volume = volumes.get(mounts.get(directory, ""), {})
    check(bool(volume), f"{flag} {path} is in a mounted volume")
    if "configMap" in volume:
        cm = volume["configMap"]["name"]
        check(name in from_files.get(cm, set()), f"the ConfigMap {cm} holds {name}")
    else:
        check(volume.get("secret", {}).get("secretName") == "charter-tls" and name in ("tls.crt", "tls.key"),
              f"{path} is in the TLS Secret")

pdb = by_kind["PodDisruptionBudget"]
check(pdb["spec"]["selector"]["matchLabels"].items() <= labels.items(), "the PodDisruptionBudget selects the pods")
check(pdb["spec"]["minAvailable"] < spec["replicas"], "the PodDisruptionBudget lets a node drain")

svc = by_kind["Service"]
check(svc["spec"]["selector"].items() <= labels.items(), "the Service selects the pods")
svc_port = svc["spec"]["ports"][0]
check(svc_port["targetPort"] in ports or svc_port["targetPort"] == listen_port, "the Service targets the server's port")
for d in docs:
    if d["kind"] != "ValidatingWebhookConfiguration":  # cluster-scoped
        check(d["metadata"].get("namespace") == "charter-system", f"{d['kind']} is in charter-system")

vwc = by_kind["ValidatingWebhookConfiguration"]
for w in vwc["webhooks"]:
    s = w["clientConfig"]["service"]
    check(s["name"] == svc["metadata"]["name"] and s["namespace"] == svc["metadata"]["namespace"]
          and s["port"] == svc_port["port"], f"webhook {w['name']} calls the Service on its port")
    check(s["path"] == "/v1/admission" and s["path"] in endpoints, f"webhook {w['name']} calls /v1/admission")
    check("v1" in w["admissionReviewVersions"], "the webhook speaks admission.k8s.io/v1")
    check(w["sideEffects"] in ("None", "NoneOnDryRun"), "the webhook declares no side effects")
    check(w["failurePolicy"] in ("Fail", "Ignore"), "the webhook has a failurePolicy")
    check(1 <= w["timeoutSeconds"] <= 30, "the webhook's timeoutSeconds is in 1..30")
    check("namespaceSelector" in w, "the webhook selects namespaces")
    # Safe by default: what keeps the cluster running is never sent. The
    # selector leaves out the system namespaces, the server's own (a webhook
    # that gates its own pods cannot come back after an outage), Kueue's and
    # the training operator's.
    excluded = set()
    for e in w["namespaceSelector"].get("matchExpressions", []):
        if e["key"] == "kubernetes.io/metadata.name" and e["operator"] == "NotIn":
            excluded |= set(e["values"])
    for ns in ("kube-system", dep["metadata"]["namespace"], "kueue-system", "kubeflow"):
        check(ns in excluded, f"webhook {w['name']} is not called for namespace {ns}")
    conditions = w.get("matchConditions", [])
    check(all(isinstance(c.get("name"), str) and isinstance(c.get("expression"), str) for c in conditions)
          and len({c["name"] for c in conditions}) == len(conditions),
          f"webhook {w['name']}'s matchConditions each have a distinct name and an expression")
    check(any("system:nodes" in c["expression"] and c["expression"].lstrip().startswith("!") for c in conditions),
          f"webhook {w['name']} is not called for kubelets (a matchCondition on the group system:nodes)")
    check(all("/" not in r for rule in w["rules"] for r in rule["resources"]),
          f"webhook {w['name']} is not called for status or other subresources")
    resources = {r for rule in w["rules"] for r in rule["resources"]}
    check({"pods", "jobs", "pytorchjobs", "workloads"} <= resources, "the webhook covers the kinds the mapping reads")
    for rule in w["rules"]:
        check(set(rule["operations"]) <= {"CREATE", "UPDATE", "DELETE", "CONNECT"}, "rule operations are admission operations")

# Spread over zones, and reachable on its port only, reaching nothing.
spread = pod.get("topologySpreadConstraints", [])
check(any(t["topologyKey"] == "topology.kubernetes.io/zone" and t["labelSelector"]["matchLabels"].items() <= labels.items()
          for t in spread), "the pods spread over zones (topologySpreadConstraints selecting them)")
check(container.get("imagePullPolicy") in ("IfNotPresent", "Always", "Never"), "the container has an imagePullPolicy")
check(isinstance(container["resources"]["requests"].get("cpu"), str) and "memory" in container["resources"]["limits"],
      "the container requests CPU and memory and limits memory")
netpol = by_kind["NetworkPolicy"]
check(netpol["spec"]["podSelector"]["matchLabels"].items() <= labels.items(), "the NetworkPolicy selects the pods")
check(set(netpol["spec"]["policyTypes"]) == {"Ingress", "Egress"}, "the NetworkPolicy governs ingress and egress")
ingress_ports = [p["port"] for rule in netpol["spec"]["ingress"] for p in rule.get("ports", [])]
check(ingress_ports and all(p in ("https", listen_port) for p in ingress_ports),
      f"the NetworkPolicy admits the server's port only ({ingress_ports})")
check(netpol["spec"].get("egress") == [], "the NetworkPolicy lets the server connect to nothing")

# The TLS pair: cert-manager's Certificate for the Service, in the Secret the
# pods mount, whose CA it injects into the webhook; or make-certs.sh.
cm = load("cert-manager.yaml")
certs = {d["metadata"]["name"]: d for d in cm if d["kind"] == "Certificate"}
issuers = {d["metadata"]["name"]: d for d in cm if d["kind"] == "Issuer"}
tls_secret = volumes["tls"]["secret"]["secretName"]
service_dns = f"{svc['metadata']['name']}.{svc['metadata']['namespace']}.svc"
cert = next((c for c in certs.values() if c["spec"]["secretName"] == tls_secret), None)
check(cert is not None and service_dns in cert["spec"]["dnsNames"],
      f"a cert-manager Certificate for {service_dns} fills the Secret the pods mount ({tls_secret})")
check(all(d["apiVersion"] == "cert-manager.io/v1" and d["metadata"]["namespace"] == "charter-system" for d in cm),
      "cert-manager.yaml's objects are cert-manager.io/v1, in charter-system")
check(cert is not None and cert["spec"]["issuerRef"]["name"] in issuers, "the Certificate's issuer is declared")
inject = vwc["metadata"].get("annotations", {}).get("cert-manager.io/inject-ca-from")
check(cert is not None and inject == f"{cert['metadata']['namespace']}/{cert['metadata']['name']}",
      f"the webhook's caBundle is injected from that Certificate ({inject})")

import base64, tempfile
with tempfile.TemporaryDirectory() as tmp:
    made = subprocess.run(["bash", os.path.join(deploy, "make-certs.sh"), "--out", tmp], capture_output=True, text=True)
    check(made.returncode == 0, f"make-certs.sh runs ({made.stderr.strip()})")
    verify = subprocess.run(["openssl", "verify", "-CAfile", f"{tmp}/ca.crt", f"{tmp}/tls.crt"], capture_output=True, text=True)
    check(verify.returncode == 0, "make-certs.sh's certificate verifies against its CA")
    san = subprocess.run(["openssl", "x509", "-in", f"{tmp}/tls.crt", "-noout", "-ext", "subjectAltName"],
                         capture_output=True, text=True).stdout
    check(f"DNS:{service_dns}" in san, f"... and is for {service_dns}")
    secret = yaml.safe_load(open(f"{tmp}/secret.yaml"))
    check(secret["kind"] == "Secret" and secret["type"] == "kubernetes.io/tls" and secret["metadata"]["name"] == tls_secret
          and secret["metadata"]["namespace"] == "charter-system"
          and base64.b64decode(secret["data"]["tls.crt"]) == open(f"{tmp}/tls.crt", "rb").read(),
          "make-certs.sh's Secret is the one the pods mount, holding the certificate")
    filled = [d for d in yaml.safe_load_all(open(f"{tmp}/webhook.yaml")) if d]
    bundles = [base64.b64decode(w["clientConfig"]["caBundle"]) for w in filled[0]["webhooks"]]
    check(bundles and all(b == open(f"{tmp}/ca.crt", "rb").read() for b in bundles),
          "make-certs.sh's webhook.yaml has caBundle set to its CA")

kube = load("authorization-webhook.kubeconfig")[0]
check(kube["apiVersion"] == "v1" and kube["kind"] == "Config", "the authorization webhook's kubeconfig is a Config")
server = urlparse(kube["clusters"][0]["cluster"]["server"])
check(server.scheme == "https" and server.path == "/v1/authorization" and server.path in endpoints,
      "the authorization webhook calls /v1/authorization over HTTPS")
check(server.hostname == f"{svc['metadata']['name']}.{svc['metadata']['namespace']}.svc" and server.port == svc_port["port"],
      "the authorization webhook calls the Service on its port")
check(kube["current-context"] in {c["name"] for c in kube["contexts"]}, "the kubeconfig's current context exists")

if failures:
    print(f"{len(failures)} check(s) failed", file=sys.stderr)
    sys.exit(1)
print("all manifest checks passed")
