#!/bin/sh
# Renders the blog example's service graph for the README:
#   docs/images/blog-graph.dot  (what `wireplan graph --format dot` prints; a test keeps it current)
#   docs/images/blog-graph.svg  (Graphviz `dot -Tsvg` of it)
# Needs Graphviz (Debian/Ubuntu: apt-get install graphviz). Run from anywhere:
#   scripts/render-graph.sh
# CI has no Graphviz: tests/explain.rs checks only that the committed DOT equals what
# `wireplan graph` prints now; after a change, run this script and commit both files.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
command -v dot >/dev/null 2>&1 || {
	echo "render-graph.sh: Graphviz 'dot' not found (apt-get install graphviz)" >&2
	exit 1
}
mkdir -p docs/images
cargo run --quiet --bin wireplan -- graph examples/blog/config/app.neon --catalog examples/blog/catalog.json --format dot \
	>docs/images/blog-graph.dot.tmp
mv docs/images/blog-graph.dot.tmp docs/images/blog-graph.dot
dot -Tsvg docs/images/blog-graph.dot >docs/images/blog-graph.svg.tmp
mv docs/images/blog-graph.svg.tmp docs/images/blog-graph.svg
echo "wrote docs/images/blog-graph.dot and docs/images/blog-graph.svg"
