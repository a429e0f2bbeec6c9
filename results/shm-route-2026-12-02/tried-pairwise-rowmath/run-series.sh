#!/bin/bash
# alternating: new = main with the pair-wise row math (uncommitted at the time), old = worktree of 999a481
for i in 1 2 3; do for v in new old; do d=/work/main; [ $v = old ] && d=/tmp/headwt
  (cd $d && bin/unicomm bench moe -n 4 --mode normal --iters 5 > /tmp/ab3/normal-$v-$i.txt 2>&1)
  (cd $d && bin/unicomm bench moe -n 4 --mode ll > /tmp/ab3/ll-$v-$i.txt 2>&1); done; done
echo finished > /tmp/ab3/done
