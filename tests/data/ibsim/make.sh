#!/bin/sh
# Regenerate the listings of NET (leafspine or mixed) from a simulated subnet:
# ibsim (ibsim-utils) loads the net file, OpenSM assigns LIDs and routes, and
# infiniband-diags lists it four ways. Run from this folder: sh make.sh NET
set -e
net=$1
export OSM_CACHE_DIR=$(mktemp -d)
ibsim -s "$net.net" </dev/zero >/dev/null 2>&1 &
sim=$!
sleep 2
ibsim-run opensm -o -f "$OSM_CACHE_DIR/osm.log" >/dev/null 2>&1
ibsim-run ibnetdiscover 2>/dev/null >"$net.ibnet"
ibsim-run ibnetdiscover -p 2>/dev/null >"$net.ports"
ibsim-run iblinkinfo 2>/dev/null >"$net.linkinfo"
ibsim-run iblinkinfo -l 2>/dev/null >"$net.linkinfo-l"
kill $sim
rm -rf "$OSM_CACHE_DIR"
