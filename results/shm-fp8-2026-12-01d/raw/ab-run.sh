#!/bin/bash
# alternating A/B of bench moe: old (/tmp/ab-old, aecf7ef) vs new (/work/main)
mode=$1; rounds=$2; shift 2
for r in $(seq 1 $rounds); do
  for v in old new; do
    dir=/work/main; [ $v = old ] && dir=/tmp/ab-old
    (cd $dir && bin/unicomm bench moe -n 4 --mode $mode "$@" > /tmp/moe-ab/$mode-$v-$r.txt 2>&1)
  done
done
echo DONE > /tmp/moe-ab/$mode.done
