#!/usr/bin/env bash
# The Debian packages the tests start real servers from. Installs what is missing when it can
# (root with apt-get); otherwise stops at once with the exact install line.
set -euo pipefail
declare -A NEED=(
  [/usr/bin/chromium]=chromium
  [/usr/sbin/sshd]=openssh-server
  [/usr/bin/ssh-keygen]=openssh-client
  [/usr/sbin/haproxy]=haproxy
  [/usr/sbin/keepalived]=keepalived
  [/usr/sbin/slapd]=slapd
  [/usr/bin/ldapsearch]=ldap-utils
  [/usr/bin/ping]=iputils-ping
  [/usr/sbin/nginx]=nginx
  [/usr/sbin/dnsmasq]=dnsmasq-base
  [/usr/bin/wrk]=wrk
  [/usr/bin/openssl]=openssl
  [/usr/sbin/ip]=iproute2
  [/usr/bin/secret-tool]=libsecret-tools
  [/usr/bin/gnome-keyring-daemon]=gnome-keyring
  [/usr/bin/dbus-daemon]=dbus-daemon
  # A listener that never accepts (connect timeouts) is a few lines of python3.
  [/usr/bin/python3]=python3-minimal
  # diff output is checked by applying it with patch(1).
  [/usr/bin/patch]=patch
  # Appliance-like targets: Dropbear with only BusyBox on PATH, and sudo for `become: sudo`.
  [/usr/sbin/dropbear]=dropbear-bin
  [/bin/busybox]=busybox
  [/usr/bin/sudo]=sudo
  # The native data path (native/engine/*.c) is compiled here: a C compiler and libuv's headers.
  [/usr/bin/cc]=gcc
  [/usr/include/uv.h]=libuv1-dev
  # The engine benchmark runs nginx stream beside HAProxy.
  [/usr/lib/nginx/modules/ngx_stream_module.so]=libnginx-mod-stream
)
missing=()
for bin in "${!NEED[@]}"; do
  # Headers and modules are files, not programs.
  [ -x "$bin" ] || { [[ "$bin" == *.h || "$bin" == *.so ]] && [ -f "$bin" ]; } || missing+=("${NEED[$bin]}")
done
[ ${#missing[@]} -eq 0 ] && exit 0
mapfile -t missing < <(printf '%s\n' "${missing[@]}" | sort -u)
line="apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "system packages missing: ${missing[*]}; installing them"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # Packages must not start their system services: the tests start their own on loopback.
  printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  rm -f /usr/sbin/policy-rc.d
else
  echo "lbdesk tests need Debian packages that are missing. Install them with:" >&2
  echo "  sudo $line" >&2
  exit 1
fi
