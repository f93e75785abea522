#!/usr/bin/env bash
# Vendors plotly.js into static/vendor/: the npm registry's partial bundle with the traces the
# pages draw (static/js/*.js use `scatter` and `bar`; the "basic" bundle has scatter, bar and
# pie, 1.2 MB against the full bundle's 4.8 MB). Served by whitenoise from the project, never
# a CDN, so nothing loads at run time from elsewhere.
#
# To refresh: set PLOTLY_VERSION to the new release (`npm view plotly.js-basic-dist-min
# version`), run `scripts/vendor-plotly.sh`, check a chart page, commit static/vendor/. A page
# that starts to use another trace type (heatmap, histogram...) needs a bundle that has it:
# see the README of the plotly.js-*-dist-min packages.
set -euo pipefail
PACKAGE=plotly.js-basic-dist-min
PLOTLY_VERSION=${PLOTLY_VERSION:-4.1.1}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm pack --silent "$PACKAGE@$PLOTLY_VERSION" >/dev/null)
tar -xzf "$work/$PACKAGE-$PLOTLY_VERSION.tgz" -C "$work"
# The file keeps the licence header plotly.js puts at its top; the full MIT licence beside it.
head -c 200 "$work/package/plotly-basic.min.js" | grep -q "plotly.js (basic - minified) v$PLOTLY_VERSION" \
  || { echo "unexpected header in $PACKAGE@$PLOTLY_VERSION" >&2; exit 1; }
cp "$work/package/plotly-basic.min.js" "$ROOT/static/vendor/plotly-basic.min.js"
cp "$work/package/LICENSE" "$ROOT/static/vendor/plotly-LICENSE.txt"
echo "$PACKAGE@$PLOTLY_VERSION ($(npm view "$PACKAGE@$PLOTLY_VERSION" dist.integrity))" \
  > "$ROOT/static/vendor/plotly-VERSION.txt"
echo "static/vendor/plotly-basic.min.js: $PACKAGE@$PLOTLY_VERSION, $(wc -c < "$ROOT/static/vendor/plotly-basic.min.js") bytes"
