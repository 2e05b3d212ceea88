#!/usr/bin/env bash
# `npm run package`: build the CloudFormation template and the function bundles offline (no AWS account).
# osls needs credentials to exist even for `package`; dummy ones are set unless real ones are given.
# Extra arguments go to osls, e.g. `npm run package -- --param="clusterName=my-cluster"`.
set -euo pipefail
cd "$(dirname "$0")/.."

export AWS_ACCESS_KEY_ID="${AWS_ACCESS_KEY_ID:-AKIAIOSFODNN7EXAMPLE}"
export AWS_SECRET_ACCESS_KEY="${AWS_SECRET_ACCESS_KEY:-wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY}"
export AWS_REGION="${AWS_REGION:-eu-west-1}"
export AWS_SDK_LOAD_CONFIG=0
export SLS_TELEMETRY_DISABLED=1
export SLS_NOTIFICATIONS_MODE=off
export SLS_DEPRECATION_DISABLE='*'
# A throw-away HOME keeps osls' caches and config out of the user's home directory.
SLS_HOME="$(mktemp -d)"
trap 'rm -rf "$SLS_HOME"' EXIT
export HOME="$SLS_HOME"

# Not `exec`: the EXIT trap must still run to remove the throw-away HOME.
npx --no-install osls package "$@"
