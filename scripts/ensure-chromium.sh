#!/usr/bin/env bash
# Installs Chromium for test/openapi/docs-browser.test.ts when /usr/bin/chromium is missing
# (Debian/Ubuntu CI images). playwright-core drives that system browser; no browser download
# from Playwright's CDN is used.
set -euo pipefail

if [ -x /usr/bin/chromium ]; then
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO="sudo"
  else
    echo "ensure-chromium: /usr/bin/chromium is missing and this user cannot install packages (no root, no sudo)." >&2
    exit 1
  fi
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-chromium: /usr/bin/chromium is missing and apt-get is not available; install Chromium at /usr/bin/chromium." >&2
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q chromium

if [ ! -x /usr/bin/chromium ]; then
  echo "ensure-chromium: apt-get installed chromium but /usr/bin/chromium is still missing." >&2
  exit 1
fi
/usr/bin/chromium --version
