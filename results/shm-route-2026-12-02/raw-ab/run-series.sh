#!/bin/bash
# alternating old (41acf66 worktree) / new (main) runs of the normal-mode bench
for i in 1 2 3; do for v in new old; do d=/work/main; [ $v = old ] && d=/tmp/oldwt
  (cd $d && bin/unicomm bench moe -n 4 --mode normal --iters 5 > /tmp/ab2/$v-$i.txt 2>&1); done; done
echo finished > /tmp/ab2/done
