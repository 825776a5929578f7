#!/usr/bin/env bash
# Makes sure an nginx binary is available for infra/test/gateway.test.ts.
# Installs Debian's nginx-light only when no nginx is found; idempotent and quiet when it is already there.
set -euo pipefail

if command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ]; then
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-nginx: nginx is missing and apt-get is not available; install nginx yourself" >&2
  exit 1
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  SUDO="sudo"
fi

echo "ensure-nginx: installing nginx-light from Debian's packages"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# policy-rc.d stops the package's post-install from starting a system nginx on port 80
if [ ! -e /usr/sbin/policy-rc.d ]; then
  printf '#!/bin/sh\nexit 101\n' | $SUDO tee /usr/sbin/policy-rc.d >/dev/null
  $SUDO chmod +x /usr/sbin/policy-rc.d
  trap '$SUDO rm -f /usr/sbin/policy-rc.d' EXIT
fi
$SUDO apt-get install -y -qq --no-install-recommends nginx-light >/dev/null
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ]
echo "ensure-nginx: $(/usr/sbin/nginx -v 2>&1)"
