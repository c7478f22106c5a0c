#!/usr/bin/env bash
# Installs, from Debian 12's packages, everything dopant needs to build and test.
# Run as root on a fresh machine; safe to run again.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
packages=(
  build-essential cmake ninja-build pkg-config binutils
  libtomlplusplus-dev libltdl-dev libdlpack-dev zlib1g-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libxml2-utils
  libseccomp-dev bubblewrap runsc
  libopenmpi-dev openmpi-bin
  clang libclang-rt-dev
)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if ((${#missing[@]})); then
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
