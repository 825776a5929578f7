#!/usr/bin/env bash
# Builds one service and writes its production bundle to OUTDIR: the service's dist, migrations and data,
# and a node_modules with production dependencies only (@genesis/common and @genesis/wire included with their built dist).
# The container image runs exactly this script (infra/docker/Dockerfile), and infra/test/bundle.test.ts runs
# it too and starts the service from the bundle alone, so what the image contains is tested here.
#
#   infra/scripts/bundle.sh <claims|collections|land> <outdir>
#
# BUNDLE_SKIP_BUILD=1 skips the turbo build (when the caller has just built everything).
set -euo pipefail

usage() {
  echo "usage: $0 <claims|collections|land> <outdir>" >&2
  exit 2
}

[ $# -eq 2 ] || usage
SERVICE="$1"
OUTDIR="$2"
case "$SERVICE" in
  claims | collections | land) ;;
  *) echo "bundle: unknown service '$SERVICE'" >&2; usage ;;
esac

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
mkdir -p "$OUTDIR"
OUTDIR="$(cd "$OUTDIR" && pwd)"
if [ -n "$(ls -A "$OUTDIR")" ]; then
  echo "bundle: $OUTDIR is not empty" >&2
  exit 1
fi

cd "$ROOT"
if [ "${BUNDLE_SKIP_BUILD:-0}" != "1" ]; then
  # turbo builds @genesis/common first (dependsOn ^build) and reuses its cache when nothing changed
  pnpm exec turbo run build --filter="@genesis/$SERVICE" --output-logs=errors-only
fi

# pnpm 10's default deploy needs inject-workspace-packages; --legacy copies workspace packages
# (@genesis/common) as real files with their build output instead of symlinking them.
pnpm --filter "@genesis/$SERVICE" deploy --prod --legacy --prefer-offline "$OUTDIR" >/dev/null

# Sources, tests and tool configs are not needed at run time.
rm -rf "$OUTDIR"/{src,test,bench,scripts,coverage,reports,.data,.turbo,.stryker-tmp} \
  "$OUTDIR"/tsconfig*.json "$OUTDIR"/vitest.config.* "$OUTDIR"/stryker.config.* "$OUTDIR"/*.tsbuildinfo \
  "$OUTDIR"/BENCHMARKS.md
cp "$ROOT/infra/docker/healthcheck.mjs" "$OUTDIR/healthcheck.mjs"

for required in dist/server.js dist/migrate.js package.json node_modules/@genesis/common/dist/index.js node_modules/@genesis/wire/dist/index.js; do
  if [ ! -e "$OUTDIR/$required" ]; then
    echo "bundle: $SERVICE bundle lacks $required (was the service built?)" >&2
    exit 1
  fi
done
echo "bundle: @genesis/$SERVICE -> $OUTDIR ($(du -sh "$OUTDIR" | cut -f1))"
