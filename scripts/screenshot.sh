#!/bin/sh
# The README's picture of the HTML report: the first screen of the main
# job's report.html, taken by headless Chromium (scripts/install-deps.sh
# installs it). Run scripts/run-main-job.sh first.
# Usage: scripts/screenshot.sh [REPORT.html] [OUT.png]
set -eu
cd "$(dirname "$0")/.."
html=${1:-${KSFTM_BUILD:-build}/main-job/report.html}
png=${2:-doc/report.png}
if [ ! -f "$html" ]; then
	echo "screenshot: $html: no such file (run scripts/run-main-job.sh first)" >&2
	exit 1
fi
command -v chromium >/dev/null || {
	echo "screenshot: chromium is not installed (scripts/install-deps.sh)" >&2
	exit 1
}
rm -f "$png"
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
# --no-sandbox: CI runs this as root, where Chromium's sandbox refuses.
chromium --headless=new --no-sandbox --disable-gpu --hide-scrollbars \
	--user-data-dir="$profile" --window-size=1100,1300 \
	--screenshot="$(realpath -m "$png")" "file://$(realpath "$html")" 2>/dev/null
[ -s "$png" ] || { echo "screenshot: chromium wrote no $png" >&2; exit 1; }
echo "screenshot: $png"
