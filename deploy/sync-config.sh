#!/usr/bin/env bash
# Refreshes deploy/k8s/base/config/ from config/ (kustomize cannot read files outside its root).
# test/deploy/config-sync.test.ts fails until this has been run after a change to config/.
set -euo pipefail
cd "$(dirname "$0")/.."
dest=deploy/k8s/base/config
rm -f "$dest"/*.yaml "$dest"/*.yml
cp config/*.yaml "$dest"/
echo "synced: $(cd "$dest" && ls | tr '\n' ' ')"
echo "new or removed files? update the files: list of configMapGenerator in deploy/k8s/base/kustomization.yaml"
