#!/bin/sh
# The image's entrypoint. The gateway (no arguments) runs with the node flags of `npm start` and of
# the Kubernetes gateway's command line (tests keep the three equal; README, Performance, says what
# each is for), so `docker run` of the image gets them too. An upstream (`upstream <name>`) runs
# with Node's defaults, as its Deployments run it. exec: node is PID 1 and gets SIGTERM.
set -eu
if [ "${1:-}" = upstream ]; then
  exec node dist/main.js "$@"
fi
exec node --max-semi-space-size=32 --min-semi-space-size=16 --no-memory-reducer --v8-pool-size=1 --initial-old-space-size=80 --no-maglev dist/main.js "$@"
