#!/bin/sh
# One-step setup for a fresh machine that has only Node.js (>= 20) and npm.
#   npm run setup
# 1. system packages the app and its tests use (Debian/Ubuntu, via apt-get; skipped elsewhere):
#    chromium (UI tests and the app window), espeak-ng + sox (real speech for the audio tests),
#    ffmpeg (encodes that speech into MP3, M4A, MP4, WebM, OGG and FLAC for the import tests; test
#    data only: the app decodes with @audio/decode),
#    pocketsphinx + its US English model (the offline recogniser tested on this machine),
#    libasound2-dev, g++, make and python3 (node-gyp builds the microphone addon, naudiodon,
#    against ALSA), fonts-wqy-microhei (a Chinese font, so the UI's screenshots in the browser
#    tests show text, not boxes), unzip (the baseline of the server's model-unpacking benchmark),
#    pulseaudio + pulseaudio-utils + libasound2-plugins (the computer-sound test runs a private
#    PulseAudio with a null sink, plays speech into it with paplay, and the capture child records
#    its monitor through ALSA's pulse plugin);
# 2. pnpm (the version pinned in package.json's packageManager);
# 3. the workspace's dependencies, including the pinned Node binary every script runs on.
set -eu
cd "$(dirname "$0")/.."

APT_PACKAGES="bubblewrap chromium espeak-ng sox ffmpeg pocketsphinx-en-us libpocketsphinx3 libsphinxbase3 libasound2-dev g++ make python3 fonts-wqy-microhei unzip pulseaudio pulseaudio-utils libasound2-plugins"

if command -v apt-get >/dev/null 2>&1 && [ "${CLASS_ASSISTANT_SKIP_APT:-0}" != 1 ]; then
  missing=""
  for package in $APT_PACKAGES; do
    dpkg -s "$package" >/dev/null 2>&1 || missing="$missing $package"
  done
  if [ -n "$missing" ]; then
    sudo=""
    [ "$(id -u)" = 0 ] || sudo="sudo"
    echo "setup: installing system packages:$missing"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing
  fi
else
  echo "setup: no apt-get here; install chromium, espeak-ng, sox and pocketsphinx yourself for the full test suite"
fi

PNPM_VERSION=$(node -p "require('./package.json').packageManager.split('@')[1]")
if ! command -v pnpm >/dev/null 2>&1 || [ "$(pnpm --version)" != "$PNPM_VERSION" ]; then
  echo "setup: installing pnpm $PNPM_VERSION"
  npm install --global --no-fund --no-audit "pnpm@$PNPM_VERSION"
fi

pnpm install
