#!/usr/bin/env bash
# Makes sure `kubectl` with kustomize v5 (kubectl >= 1.27) is on PATH, for test/deploy.
# Installs it with apt-get when missing: the `kubectl` package if a configured repository has it
# (pkgs.k8s.io, Google Cloud SDK), else Debian's `kubernetes-client` when recent enough.
# Debian 12's kubernetes-client is 1.20 (kustomize v2, too old for these overlays): then set
# KUBECTL_APT_REPO=pkgs.k8s.io to add the upstream Kubernetes apt repository and retry.
set -euo pipefail

min_minor=27
minor_of() { kubectl version --client -o json 2>/dev/null | sed -n 's/.*"minor": *"\([0-9]*\).*/\1/p' | head -n1; }
good_enough() {
  command -v kubectl >/dev/null 2>&1 || return 1
  local m
  m="$(minor_of)"
  [ -n "$m" ] && [ "$m" -ge "$min_minor" ]
}

if good_enough; then
  echo "kubectl present: $(kubectl version --client 2>/dev/null | tr '\n' ' ')"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive

if [ "${KUBECTL_APT_REPO:-}" = "pkgs.k8s.io" ]; then
  version="${KUBECTL_APT_VERSION:-v1.32}"
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends ca-certificates curl gnupg
  $SUDO install -m 0755 -d /etc/apt/keyrings
  curl -fsSL "https://pkgs.k8s.io/core:/stable:/${version}/deb/Release.key" |
    $SUDO gpg --dearmor --yes -o /etc/apt/keyrings/kubernetes-apt-keyring.gpg
  echo "deb [signed-by=/etc/apt/keyrings/kubernetes-apt-keyring.gpg] https://pkgs.k8s.io/core:/stable:/${version}/deb/ /" |
    $SUDO tee /etc/apt/sources.list.d/kubernetes.list >/dev/null
fi

$SUDO apt-get update -q
candidate() { apt-cache policy "$1" 2>/dev/null | sed -n 's/^ *Candidate: *//p' | head -n1; }
for pkg in kubectl kubernetes-client; do
  c="$(candidate "$pkg")"
  if [ -n "$c" ] && [ "$c" != "(none)" ]; then
    echo "installing $pkg $c"
    $SUDO apt-get install -y -q --no-install-recommends "$pkg"
    if good_enough; then
      echo "kubectl ready: $(kubectl version --client 2>/dev/null | tr '\n' ' ')"
      exit 0
    fi
    echo "$pkg $c is older than kubectl 1.${min_minor} (kustomize v5)" >&2
  fi
done

echo "no kubectl >= 1.${min_minor} available from apt; rerun with KUBECTL_APT_REPO=pkgs.k8s.io" >&2
exit 1
