#!/usr/bin/env bash
# Installs what Portolan needs from Debian's packages (idempotent: skips what is present),
# then generates the build files and builds the release and ASan+UBSan configurations.
set -euo pipefail
cd "$(dirname "$0")/.."

PKGS=(make gcc g++ libc6-dev pkgconf premake4 libcglm-dev libstb-dev python3-glad libcriterion-dev
      librecast-dev liblz4-dev libegl1 libegl-mesa0 libgl1-mesa-dri libsdl2-dev xvfb xauth xdotool
      clang-14 libclang-rt-14-dev time)
missing=()
for p in "${PKGS[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "setup: installing ${missing[*]}"
    SUDO=""
    [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

premake4 --file=premake5.lua gmake >/dev/null
jobs=$(nproc 2>/dev/null || echo 2)
for cfg in ${PTL_CONFIGS:-release asan}; do
    make -s -C build config="$cfg" -j"$jobs"
done
