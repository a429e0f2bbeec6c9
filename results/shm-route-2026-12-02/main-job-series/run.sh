#!/bin/bash
# three rounds of the README's main job (both modes, 4 ranks) on main
cd /work/main
for i in 1 2 3; do bin/unicomm bench moe -n 4 > /tmp/series/moe-$i.txt 2>&1; done
echo finished > /tmp/series/done
