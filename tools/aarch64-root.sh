#!/usr/bin/env bash
# An arm64 CPython 3.11 that runs on an x86-64 machine under qemu user emulation,
# without binfmt handlers (nothing on the machine changes):
#
#     tools/aarch64-root.sh DIR
#
# downloads Debian bookworm's arm64 packages of CPython 3.11 (with the headers of
# libpython3.11-dev) and its libraries with a private apt state, unpacks them into
# DIR/root with dpkg-deb -x, unpacks Debian's qemu-user-static into DIR/qemu the same
# way, and writes DIR/python3.11, a script that runs that Python under
# qemu-aarch64-static. It names itself as sys.executable, so that subprocesses and
# multiprocessing's spawn and forkserver start the same emulated interpreter.
# Debian's mirror is the one this machine's apt uses (MEMVIEW_DEBIAN_MIRROR overrides).
set -euo pipefail
dir=$(mkdir -p "$1" && cd "$1" && pwd)
mirror=${MEMVIEW_DEBIAN_MIRROR:-$(sed -n 's|^URIs: *\([^ ]*/debian\)/*$|\1|p' /etc/apt/sources.list.d/*.sources \
  2>/dev/null | head -n 1)}
mirror=${mirror:-http://deb.debian.org/debian}
packages=(libc6 libgcc-s1 libstdc++6 python3.11-minimal libpython3.11-minimal libpython3.11-stdlib libpython3.11-dev
  libexpat1 zlib1g libffi8 libssl3 libbz2-1.0 liblzma5 libsqlite3-0 libuuid1 libncursesw6 libtinfo6
  libreadline8 libcrypt1 libnsl2 libtirpc3 libdb5.3 libgssapi-krb5-2 libkrb5-3 libk5crypto3 libcom-err2
  libkrb5support0 libkeyutils1)
state=$dir/apt
rm -rf "$state" "$dir/root" "$dir/qemu"
mkdir -p "$state/lists/partial" "$state/cache/archives/partial" "$state/debs" "$state/qemu" "$dir/root" "$dir/qemu"
: >"$state/status"
echo "deb [arch=arm64,amd64 signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror bookworm main" \
  >"$state/sources.list"
apt_opts=(-o Dir::State::Lists="$state/lists" -o Dir::State::status="$state/status" -o Dir::Cache="$state/cache"
  -o Dir::Etc::sourcelist="$state/sources.list" -o Dir::Etc::sourceparts=- -o APT::Architectures::=arm64
  -o APT::Architectures::=amd64 -o APT::Sandbox::User=root -o Debug::NoLocking=1 -q)
apt-get "${apt_opts[@]}" -o APT::Architecture=arm64 update >/dev/null
(cd "$state/debs" && apt-get "${apt_opts[@]}" -o APT::Architecture=arm64 download "${packages[@]}" >/dev/null)
(cd "$state/qemu" && apt-get "${apt_opts[@]}" -o APT::Architecture=amd64 download qemu-user-static:amd64 >/dev/null)
for deb in "$state"/debs/*.deb; do dpkg-deb -x "$deb" "$dir/root"; done
dpkg-deb -x "$state"/qemu/*.deb "$dir/qemu"
# pyconfig.h for aarch64, where Python.h looks for it (Debian keeps it per architecture)
cp "$dir/root/usr/include/aarch64-linux-gnu/python3.11/pyconfig.h" "$dir/root/usr/include/python3.11/pyconfig.h"
cat >"$dir/python3.11" <<SH
#!/bin/sh
QEMU_LD_PREFIX='$dir/root' exec '$dir/qemu/usr/bin/qemu-aarch64-static' -0 "\$0" '$dir/root/usr/bin/python3.11' "\$@"
SH
chmod +x "$dir/python3.11"
"$dir/python3.11" -c 'import platform, sys; print("arm64 CPython", platform.python_version(), platform.machine(), sys.executable)'
