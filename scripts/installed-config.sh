#!/usr/bin/env bash
# Prints configs/gateway.yaml (read on stdin) as installed: the plugin
# paths, relative to configs/ in the repository, point at PLUGINDIR ($1).
set -euo pipefail
plugindir=${1:?usage: installed-config.sh PLUGINDIR <gateway.yaml}
sed -e "s|\.\./examples/plugins/|$plugindir/|g" \
    -e "s|\`make run\` builds the example plugins and serves this file\.|The example plugins are installed in $plugindir.|"
