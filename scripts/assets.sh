#!/usr/bin/env bash
# GraphiQL's third-party bundles, from the npm registry: the exact versions
# reference/web/npm/package-lock.json pins (npm ci), copied into
# reference/web/static/vendor, which catalogd embeds when it is built. Not
# committed; `make build` runs this. Does nothing when the copies are
# already those of the current lock file.
set -euo pipefail
cd "$(dirname "$0")/.."

npmdir=reference/web/npm
vendor=reference/web/static/vendor
stamp=$vendor/.lock-sha256

want=$(sha256sum "$npmdir/package-lock.json" | cut -d' ' -f1)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] &&
   [ -f "$vendor/graphiql.min.js" ] && [ -f "$vendor/graphiql.min.css" ] &&
   [ -f "$vendor/react.production.min.js" ] && [ -f "$vendor/react-dom.production.min.js" ]; then
  exit 0
fi

if ! command -v npm >/dev/null 2>&1; then
  echo "assets: npm is needed to fetch GraphiQL (apt-get install npm, or Node.js from nodejs.org)" >&2
  exit 1
fi
echo "assets: npm ci in $npmdir (graphiql, react, react-dom as package-lock.json pins them)"
npm ci --prefix "$npmdir" --no-audit --no-fund --loglevel=error
cp "$npmdir/node_modules/graphiql/graphiql.min.js" \
   "$npmdir/node_modules/graphiql/graphiql.min.css" \
   "$npmdir/node_modules/react/umd/react.production.min.js" \
   "$npmdir/node_modules/react-dom/umd/react-dom.production.min.js" \
   "$vendor/"
echo "$want" > "$stamp"
echo "assets: GraphiQL's bundles are in $vendor"
